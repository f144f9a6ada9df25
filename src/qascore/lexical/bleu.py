"""BLEU, sentence and corpus level, with sacreBLEU's semantics (2.6) on compiled n-gram counting.

Owns: the sufficient statistics of BLEU (hypothesis length, closest reference length, clipped
matches and hypothesis n-gram totals per order), sacrebleu's smoothing methods (``none``,
``floor``, ``add-k``, ``exp``) and effective order, and the score objects with signatures.

References are given per hypothesis (``references[i]`` is the list of references of
``hypotheses[i]``); :mod:`qascore.compat.sacrebleu` accepts sacrebleu's reference streams.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .._kernels.bleu_score import brevity_penalties, geometric_means
from .._kernels.bleu_tok13a import tokenize_13a_segment
from .._kernels.ngram import segment_clipped_matches
from .._parallel import pool_threads, resolve_n_jobs, threads_for
from ..metric import CorpusScore, ExampleScores, Metric, Statistics
from ..signature import count_nrefs, make_signature, nrefs_of_sums, reference_count_sums
from ..text.packing import Vocabulary
from ..text.sacrebleu_tokenizers import SacreTokenizer, get_sacrebleu_tokenizer, preprocess_segment
from ..validate import MAX_ORDER, check_flag, check_int, check_real
from .segments import Segments, pack_token_lists, segment_lines, single_segment_lines

SMOOTH_DEFAULTS = {"none": None, "floor": 0.1, "add-k": 1, "exp": None}


@dataclass
class BleuStatistics:
    """Per-segment sufficient statistics; sums of rows give corpus statistics."""

    sys_len: np.ndarray  # int64[Q]
    ref_len: np.ndarray  # int64[Q], closest reference length (ties -> shorter)
    correct: np.ndarray  # int64[Q, N], clipped matches (max count over references)
    total: np.ndarray  # int64[Q, N], hypothesis n-grams

    def __len__(self) -> int:
        return len(self.sys_len)


@dataclass
class BLEUScore:
    """One BLEU result: ``score`` in [0, 100], precisions in percent, as sacrebleu reports them."""

    score: float
    counts: list
    totals: list
    precisions: list
    bp: float
    sys_len: int
    ref_len: int
    signature: str = field(default="")

    @property
    def ratio(self) -> float:
        return self.sys_len / self.ref_len if self.ref_len else 0

    def __str__(self) -> str:
        prec = "/".join(f"{p:.1f}" for p in self.precisions)
        return (f"BLEU = {self.score:.2f} {prec} (BP = {self.bp:.3f} ratio = {self.ratio:.3f} "
                f"hyp_len = {self.sys_len:d} ref_len = {self.ref_len:d}) [{self.signature}]")


def closest_reference_lengths(hyp_len: np.ndarray, ref_len: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Per hypothesis, the reference length closest to its length; ties go to the shorter one.

    ``ref_len[groups[i]:groups[i + 1]]`` are the reference lengths of hypothesis i (never empty).
    """
    owner = np.repeat(np.arange(len(hyp_len)), np.diff(groups))
    diff = np.abs(hyp_len[owner] - ref_len)
    # One key orders by distance first and length second; lengths are < 2**31.
    key = (diff << np.int64(32)) | ref_len
    return (np.minimum.reduceat(key, groups[:-1]) & np.int64(0xFFFFFFFF)) if len(key) else key


def check_smoothing(smooth_method: str, smooth_value) -> None:
    """A known method, and a smoothing value that is None or a finite real number (NaN would
    silently give a score of 0)."""
    if smooth_method not in SMOOTH_DEFAULTS:
        raise ValueError(f"unknown smooth_method {smooth_method!r}; known: {', '.join(SMOOTH_DEFAULTS)}")
    if smooth_value is None:
        return
    check_real(smooth_value, "smooth_value")


def bleu_from_statistics(correct, total, sys_len, ref_len, *, smooth_method: str = "exp",
                         smooth_value=None, effective_order: bool = False):
    """sacrebleu's ``BLEU.compute_bleu`` for many rows at once, with its exact float operations
    (the logs, exponentials and sum of the final formula in a kernel: numpy's exp and log are not
    libm's).

    Returns (score[Q], precisions[Q, N], bp[Q], counts[Q, N], totals[Q, N]); counts and totals
    include the add-k adjustment as sacrebleu's objects do.
    """
    check_smoothing(smooth_method, smooth_value)
    if smooth_value is None:
        smooth_value = SMOOTH_DEFAULTS[smooth_method]
    # float32 statistics (sacrebleu's bootstrap sums them so) keep float32 precisions, as sacrebleu's
    # Python arithmetic on numpy float32 scalars does
    dtype = np.float32 if np.asarray(correct).dtype == np.float32 else np.float64
    correct = np.array(correct, dtype=dtype, ndmin=2)
    total = np.array(total, dtype=dtype, ndmin=2)
    sys_len = np.asarray(sys_len, dtype=np.float64).reshape(-1)
    ref_len = np.asarray(ref_len, dtype=np.float64).reshape(-1)
    rows, order = correct.shape

    bp = brevity_penalties(sys_len, ref_len)

    precisions = np.zeros((rows, order), dtype=dtype)
    alive = (correct != 0).any(axis=1)  # sacrebleu returns 0 early when nothing matches (#141)
    matched_any = alive.copy()
    eff_order = np.full(rows, order, dtype=np.int64)
    smooth_mteval = np.ones(rows, dtype=dtype)
    for n in range(order):
        if smooth_method == "add-k" and n > 0:
            correct[alive, n] += smooth_value
            total[alive, n] += smooth_value
        alive &= total[:, n] != 0
        if effective_order:
            eff_order[alive] = n + 1
        zero = alive & (correct[:, n] == 0)
        hit = alive & ~zero
        precisions[hit, n] = 100.0 * correct[hit, n] / total[hit, n]
        if smooth_method == "exp":
            smooth_mteval[zero] *= 2
            precisions[zero, n] = 100.0 / (smooth_mteval[zero] * total[zero, n])
        elif smooth_method == "floor":
            precisions[zero, n] = 100.0 * smooth_value / total[zero, n]

    score = geometric_means(precisions.astype(np.float64), eff_order, bp, matched_any.view(np.uint8))
    return score, precisions, bp, correct, total


def bleu_of_counts(correct: list, total: list, sys_len: int, ref_len: int, *, smooth_method: str = "exp",
                   smooth_value=None, effective_order: bool = False) -> tuple[float, list, float, list, list]:
    """:func:`bleu_from_statistics` of one row of Python numbers (a sentence-level call), with
    sacrebleu's own Python float operations in its order, so no numpy work is done for one row.

    Returns (score, precisions, bp, counts, totals); counts and totals are new lists holding the
    add-k adjustment. An unknown method raises as in :func:`check_smoothing`."""
    if smooth_method not in SMOOTH_DEFAULTS:
        check_smoothing(smooth_method, smooth_value)  # raises, naming the known methods
    if smooth_value is None:
        smooth_value = SMOOTH_DEFAULTS[smooth_method]
    bp = 1.0
    if sys_len < ref_len:
        bp = math.exp(1 - ref_len / sys_len) if sys_len > 0 else 0.0
    order = len(correct)
    precisions = [0.0] * order
    correct, total = list(correct), list(total)
    if not any(correct):  # sacrebleu's early stop (#141)
        return 0.0, precisions, bp, correct, total
    smooth_mteval = 1.0
    eff_order = order
    for n in range(order):
        if smooth_method == "add-k" and n > 0:
            correct[n] += smooth_value
            total[n] += smooth_value
        if total[n] == 0:
            break
        if effective_order:
            eff_order = n + 1
        if correct[n] == 0:
            if smooth_method == "exp":
                smooth_mteval *= 2
                precisions[n] = 100.0 / (smooth_mteval * total[n])
            elif smooth_method == "floor":
                precisions[n] = 100.0 * smooth_value / total[n]
        else:
            precisions[n] = 100.0 * correct[n] / total[n]
    # sacrebleu's my_log: an int floor for log(0), summed by the builtin sum as there
    logs = [math.log(p) if p != 0.0 else -9999999999 for p in precisions[:eff_order]]
    return bp * math.exp(sum(logs) / eff_order), precisions, bp, correct, total


class BLEU(Metric):
    """BLEU with sacrebleu's settings: ``tokenize`` one of sacrebleu's tokeniser names (13a, none,
    intl, zh, char; ja-mecab and ko-mecab with the extras ``ja`` / ``ko``; spm, flores101, flores200,
    spBLEU-1K with the extra ``spm`` and a model file, see
    :func:`~qascore.text.sacrebleu_tokenizers.spm_model_path`) or a tokeniser object from
    :func:`~qascore.text.sacrebleu_tokenizers.get_sacrebleu_tokenizer`, ``lowercase``,
    ``smooth_method`` in none/floor/add-k/exp (``smooth_value`` for floor and add-k),
    ``max_ngram_order`` and ``effective_order``. Batch calls use ``n_jobs`` threads.

    As a :class:`~qascore.metric.Metric`: ``score`` is sentence BLEU of every hypothesis (with this
    object's settings; sacrebleu's ``sentence_bleu`` uses ``effective_order=True``),
    ``statistics`` are the corpus n-gram counts and lengths (integers, so they add exactly) and
    ``aggregate`` / ``compute`` give corpus BLEU, bit for bit the ``score`` of
    :meth:`corpus_score` on the whole stream. :meth:`corpus_score` returns sacrebleu's result
    object (:class:`BLEUScore`) rather than a :class:`~qascore.metric.CorpusScore`.
    """

    name = "bleu"

    def __init__(self, tokenize: str | SacreTokenizer = "13a", *, lowercase: bool = False, smooth_method: str = "exp",
                 smooth_value=None, max_ngram_order: int = 4, effective_order: bool = False,
                 n_jobs: int | None = None):
        check_smoothing(smooth_method, smooth_value)
        max_ngram_order = check_int(max_ngram_order, "max_ngram_order", low=1, high=MAX_ORDER)
        self.tokenizer = tokenize if isinstance(tokenize, SacreTokenizer) else get_sacrebleu_tokenizer(tokenize)
        self.lowercase = check_flag(lowercase, "lowercase")
        self.smooth_method = smooth_method
        self.smooth_value = smooth_value
        self.max_ngram_order = max_ngram_order
        self.effective_order = check_flag(effective_order, "effective_order")
        self.n_jobs = resolve_n_jobs(n_jobs)

    # -- statistics -------------------------------------------------------------------------
    def _pack(self, texts, segment_starts) -> tuple[np.ndarray, np.ndarray]:
        """Token ids and row offsets of the preprocessed texts; ids agree at least within each
        segment (rows ``segment_starts[i]`` up to the next start)."""
        if self.lowercase:
            texts = [t.lower() for t in texts]
        if self.tokenizer.name == "13a":  # compiled tokeniser + per-segment interning, the common case
            from .._kernels.bleu_tok13a import tokenize_13a_packed

            ids, offsets, _ = tokenize_13a_packed(texts, segment_starts, pool_threads(self.n_jobs))
            return ids, offsets
        lines = [t.rstrip() for t in texts]  # sacrebleu's preprocessing (preprocess_segment), batched
        packed = Vocabulary().pack(self.tokenizer.tokenize_batch(lines, threads_for(len(lines), self.n_jobs)))
        return packed.ids, packed.offsets

    def settings(self) -> dict:
        return {"tokenize": self.tokenizer.name, "lowercase": self.lowercase, "smooth_method": self.smooth_method,
                "smooth_value": self.smooth_value, "max_ngram_order": self.max_ngram_order,
                "effective_order": self.effective_order}

    def segment_statistics(self, hypotheses, references) -> BleuStatistics:
        """Sufficient statistics of every hypothesis against its own list of references."""
        return self.segment_statistics_of(segment_lines(hypotheses, references))

    def segment_statistics_of(self, seg: Segments) -> BleuStatistics:
        """:meth:`segment_statistics` of a batch already laid out (:mod:`qascore.lexical.segments`)."""
        from .._kernels.ngram import clipped_ngram_matches, ngram_totals

        hyp_rows, ref_rows, groups = seg.hyp_rows, seg.ref_rows, seg.groups
        q = len(hyp_rows)
        ids, offsets = self._pack(seg.lines, hyp_rows)
        lengths = np.diff(offsets)
        correct = clipped_ngram_matches(ids, offsets, hyp_rows, ids, offsets, ref_rows, groups,
                                        self.max_ngram_order, threads_for(q, self.n_jobs))
        sys_len = lengths[hyp_rows]
        return BleuStatistics(sys_len, closest_reference_lengths(sys_len, lengths[ref_rows], groups),
                              correct, ngram_totals(sys_len, self.max_ngram_order))

    def sentence_statistics(self, lines: list) -> tuple[int, int, list, list]:
        """(sys_len, ref_len, correct, total) as Python numbers for one segment given as
        ``[hypothesis, *references]``, exact ``str`` each (:func:`~qascore.lexical.segments.single_segment_lines`):
        the per-call road of the sentence-level entry points, on the kernels' one-segment
        functions (no arrays, no threads)."""
        if self.lowercase:
            lines = [t.lower() for t in lines]
        if self.tokenizer.name == "13a":
            ids, lengths = tokenize_13a_segment(lines)
        else:
            token_ids, lengths = pack_token_lists([preprocess_segment(t, self.tokenizer) for t in lines])
            ids = np.array(token_ids, dtype=np.int32).tobytes()
        order = self.max_ngram_order
        correct = segment_clipped_matches(ids, lengths, order)
        sys_len = lengths[0]
        if len(lengths) == 2:
            ref_len = lengths[1]
        else:  # the closest reference length, ties to the shorter (sacrebleu's _get_closest_ref_len)
            ref_len = min([(abs(length - sys_len), length) for length in lengths[1:]])[1]
        if sys_len >= order:
            return sys_len, ref_len, correct, list(range(sys_len, sys_len - order, -1))
        return sys_len, ref_len, correct, [max(sys_len - n, 0) for n in range(order)]

    def _sentence_signature(self, n_refs: int) -> str:
        """:meth:`signature` for ``n_refs`` references, built once per setting (a per-call cost otherwise)."""
        key = (n_refs, self.lowercase, self.effective_order, self.tokenizer.name, self.smooth_method,
               self.smooth_value, self.max_ngram_order)
        cache = self.__dict__.setdefault("_signatures", {})
        signature = cache.get(key)
        if signature is None:
            signature = cache[key] = self.signature(str(n_refs))
        return signature

    def statistics(self, hypotheses, references) -> Statistics:
        """Corpus statistics of a batch: ``sys_len``, ``ref_len``, ``correct`` and ``total`` (per
        n-gram order) summed over segments, and the reference counts behind ``nrefs``."""
        if not isinstance(references, (list, tuple, str)):  # read twice below; a str is refused by the layout
            references = list(references)
        stats = self.segment_statistics(hypotheses, references)
        return Statistics({"sys_len": int(stats.sys_len.sum()), "ref_len": int(stats.ref_len.sum()),
                           "correct": stats.correct.sum(axis=0), "total": stats.total.sum(axis=0),
                           **reference_count_sums(references)}, len(stats))

    # -- scores ----------------------------------------------------------------------------
    def signature(self, nrefs: str | int | None = None) -> str:
        """The settings of a score; ``nrefs`` (references per hypothesis, or ``var``) when known."""
        smooth = self.smooth_method
        if SMOOTH_DEFAULTS[smooth] is not None:
            value = SMOOTH_DEFAULTS[smooth] if self.smooth_value is None else self.smooth_value
            smooth += f"[{value:.2f}]"
        counted = {} if nrefs is None else {"nrefs": nrefs}
        return make_signature("bleu", **counted, case="lc" if self.lowercase else "mixed",
                              eff=self.effective_order, tok=self.tokenizer.signature, smooth=smooth,
                              ngram=self.max_ngram_order)

    def _compute(self, correct, total, sys_len, ref_len):
        return bleu_from_statistics(correct, total, sys_len, ref_len, smooth_method=self.smooth_method,
                                    smooth_value=self.smooth_value, effective_order=self.effective_order)

    def score_statistics(self, stats: BleuStatistics | Statistics, signature: str = "") -> BLEUScore:
        """Corpus BLEU of already computed statistics: per-segment :class:`BleuStatistics`, or
        :meth:`statistics` summed over several batches."""
        if isinstance(stats, Statistics):
            sys_len, ref_len = int(stats.sums["sys_len"]), int(stats.sums["ref_len"])
            correct, total = stats.sums["correct"], stats.sums["total"]
        else:
            sys_len, ref_len = int(stats.sys_len.sum()), int(stats.ref_len.sum())
            correct, total = stats.correct.sum(axis=0), stats.total.sum(axis=0)
        score, prec, bp, counts, totals = self._compute(correct, total, sys_len, ref_len)
        return BLEUScore(float(score[0]), as_numbers(counts[0]), as_numbers(totals[0]),
                         prec[0].tolist(), float(bp[0]), sys_len, ref_len, signature)

    def aggregate(self, statistics: Statistics) -> CorpusScore:
        """Corpus BLEU of summed statistics: ``score``, ``precision_1..N`` (percent), ``bp``,
        ``sys_len`` and ``ref_len``."""
        result = self.score_statistics(statistics)
        values = {"score": result.score, **{f"precision_{k}": p for k, p in enumerate(result.precisions, 1)},
                  "bp": result.bp, "sys_len": result.sys_len, "ref_len": result.ref_len}
        return CorpusScore(self.name, values, statistics.n, self.signature(nrefs_of_sums(statistics)))

    def corpus_score(self, hypotheses, references) -> BLEUScore:  # type: ignore[override]  # sacrebleu's shape
        """Corpus BLEU: statistics summed over all segments, then one score."""
        stats = self.segment_statistics(hypotheses, references)
        return self.score_statistics(stats, self.signature(count_nrefs(references)))

    def sentence_scores(self, hypotheses, references) -> np.ndarray:
        """BLEU of every hypothesis on its own (0-100), float64[Q]; one compiled pass for the batch."""
        stats = self.segment_statistics(hypotheses, references)
        return self._compute(stats.correct, stats.total, stats.sys_len, stats.ref_len)[0]

    def score(self, hypotheses, references) -> ExampleScores:
        """Sentence BLEU of every hypothesis (column ``bleu``, 0-100), as :meth:`sentence_scores`."""
        if not isinstance(references, (list, tuple, str)):  # read twice below; a str is refused by the layout
            references = list(references)
        return ExampleScores(self.name, {"bleu": self.sentence_scores(hypotheses, references)},
                             self.signature(count_nrefs(references)))

    def sentence_score(self, hypothesis: str, references) -> BLEUScore:
        """BLEU of one hypothesis against its references, as a full score object."""
        lines = single_segment_lines(hypothesis, references)
        if lines is not None:  # the plain call: no batch layout, no arrays, Python floats
            sys_len, ref_len, correct, total = self.sentence_statistics(lines)
            score, prec, bp, counts, totals = bleu_of_counts(
                correct, total, sys_len, ref_len, smooth_method=self.smooth_method, smooth_value=self.smooth_value,
                effective_order=self.effective_order)
            if self.smooth_method == "add-k":  # only add-k makes counts other than ints
                counts, totals = as_numbers(counts), as_numbers(totals)
            return BLEUScore(score, counts, totals, prec, bp, sys_len, ref_len,
                             self._sentence_signature(len(lines) - 1))
        stats = self.segment_statistics([hypothesis], [references])
        return self.score_statistics(stats, self.signature(count_nrefs([references])))


def as_numbers(values) -> list:
    """Integers stay ints (as in sacrebleu) unless add-k made them fractional."""
    return [int(v) if float(v).is_integer() else float(v) for v in values]


def corpus_bleu(hypotheses, references, **options) -> BLEUScore:
    """Corpus BLEU with :class:`BLEU`'s options; ``references[i]`` lists hypothesis i's references."""
    return BLEU(**options).corpus_score(hypotheses, references)


def sentence_bleu(hypotheses, references, *, effective_order: bool = True, **options) -> np.ndarray:
    """Sentence BLEU for a batch (effective order on, as sacrebleu's ``sentence_bleu``)."""
    return BLEU(effective_order=effective_order, **options).sentence_scores(hypotheses, references)
