"""BLEU, sentence and corpus level, with sacreBLEU's semantics (2.6) on compiled n-gram counting.

Owns: the sufficient statistics of BLEU (hypothesis length, closest reference length, clipped
matches and hypothesis n-gram totals per order), sacrebleu's smoothing methods (``none``,
``floor``, ``add-k``, ``exp``) and effective order, and BLEU's signature.

The functions are the road: :func:`corpus_bleu` (a :class:`~qascore.metric.CorpusScore`) is
:func:`bleu_statistics` then :func:`bleu_aggregate`, and :func:`sentence_bleu` scores every segment
on its own. :class:`BLEU` holds the settings and calls them as a :class:`~qascore.metric.Metric`.
References are given per hypothesis (``references[i]`` is the list of references of
``hypotheses[i]``); :mod:`qascore.compat.sacrebleu` accepts sacrebleu's reference streams and
returns sacrebleu's score objects.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .._kernels.bleu_score import brevity_penalties, geometric_means
from .._kernels.bleu_tok13a import tokenize_13a_segment
from .._kernels.ngram import segment_clipped_matches
from .._parallel import pool_threads, resolve_n_jobs, threads_for
from ..metric import CorpusScore, ExampleScores, Metric, Statistics
from ..signature import count_nrefs, make_signature, nrefs_of_sums, reference_count_sums
from ..text.packing import Vocabulary
from ..text.sacrebleu_tokenizers import get_sacrebleu_tokenizer, preprocess_segment
from ..text.tokenizers import Tokenizer, TokenizerBase
from ..validate import MAX_ORDER, check_flag, check_int, check_real
from .segments import Segments, pack_token_lists, segment_lines, single_segment_lines

__all__ = ["BLEU", "SMOOTH_DEFAULTS", "BleuStatistics", "bleu_aggregate", "bleu_from_statistics", "bleu_of_counts",
           "bleu_statistics", "corpus_bleu", "sentence_bleu"]

# sacrebleu's smoothing methods and each one's default smooth_value (None: the method has none)
SMOOTH_DEFAULTS = {"none": None, "floor": 0.1, "add-k": 1, "exp": None}


@dataclass
class BleuStatistics:
    """Per-segment sufficient statistics of BLEU, one row per hypothesis, as
    :meth:`BLEU.segment_statistics` returns them; the sums of the rows are the corpus statistics
    (:func:`bleu_statistics`), and ``len()`` is the number of segments.

    Example:

        >>> from qascore.lexical.bleu import BLEU
        >>> stats = BLEU().segment_statistics(["the cat sat on the mat", "a dog barked"],
        ...                                   [["the cat sat on a mat"], ["the dog barked loudly", "a dog barked"]])
        >>> len(stats), stats.sys_len.tolist(), stats.ref_len.tolist()
        (2, [6, 3], [6, 3])
        >>> stats.correct.tolist(), stats.total.tolist()  # 1- to 4-grams: clipped matches, hypothesis n-grams
        ([[5, 3, 2, 1], [3, 2, 1, 0]], [[6, 5, 4, 3], [3, 2, 1, 0]])
        >>> stats.correct.sum(axis=0).tolist()  # the corpus's matches
        [8, 5, 3, 1]

    :param sys_len: int64[Q], each hypothesis's length in tokens.
    :param ref_len: int64[Q], the reference length closest to it (ties go to the shorter one).
    :param correct: int64[Q, N], clipped n-gram matches for n = 1..N (each n-gram's count clipped
        to its largest count in one reference).
    :param total: int64[Q, N], the hypothesis's n-grams for n = 1..N.
    """

    sys_len: np.ndarray  # int64[Q]
    ref_len: np.ndarray  # int64[Q], closest reference length (ties -> shorter)
    correct: np.ndarray  # int64[Q, N], clipped matches (max count over references)
    total: np.ndarray  # int64[Q, N], hypothesis n-grams

    def __len__(self) -> int:
        return len(self.sys_len)


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

    Example:

        >>> from qascore.lexical.bleu import bleu_from_statistics
        >>> score, precisions, bp, counts, totals = bleu_from_statistics(
        ...     [[5, 3, 2, 1], [2, 0, 0, 0]], [[6, 5, 4, 3], [3, 2, 1, 0]], [6, 3], [6, 4])
        >>> score.round(4).tolist(), bp.round(4).tolist()
        ([53.7285, 0.0], [1.0, 0.7165])
        >>> precisions.round(2).tolist()
        [[83.33, 60.0, 50.0, 33.33], [66.67, 25.0, 25.0, 0.0]]

    :param correct: clipped n-gram matches, one row per segment (or corpus), one column per order.
    :param total: hypothesis n-grams, shaped as ``correct``.
    :param sys_len: hypothesis lengths in tokens, one per row.
    :param ref_len: closest reference lengths in tokens, one per row.
    :param smooth_method: ``none``, ``floor``, ``add-k`` or ``exp`` (:data:`SMOOTH_DEFAULTS`).
    :param smooth_value: the value of ``floor`` or ``add-k`` (None: the method's default).
    :param effective_order: stop each geometric mean at the highest order with any n-gram.
    :returns: (score[Q], precisions[Q, N], bp[Q], counts[Q, N], totals[Q, N]) as numpy arrays;
        counts and totals include the add-k adjustment as sacrebleu's objects do.
    :raises ValueError: for an unknown smoothing method.
    :raises TypeError: for a smoothing value that is not a real number.
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

    Example:

        >>> from qascore.lexical.bleu import bleu_of_counts
        >>> score, precisions, bp, counts, totals = bleu_of_counts([5, 3, 2, 1], [6, 5, 4, 3], 6, 6)
        >>> round(score, 4), bp, counts
        (53.7285, 1.0, [5, 3, 2, 1])
        >>> bleu_of_counts([2, 1, 0, 0], [3, 2, 1, 0], 3, 4, smooth_method="add-k")[3]  # add-k counts
        [2, 2, 1, 1]

    :param correct: clipped n-gram matches per order.
    :param total: hypothesis n-grams per order.
    :param sys_len: the hypothesis length in tokens.
    :param ref_len: the closest reference length in tokens.
    :param smooth_method: ``none``, ``floor``, ``add-k`` or ``exp``.
    :param smooth_value: the value of ``floor`` or ``add-k`` (None: the method's default).
    :param effective_order: stop the geometric mean at the highest order with any n-gram.
    :returns: (score, precisions, bp, counts, totals); counts and totals are new lists holding the
        add-k adjustment.
    :raises ValueError: for an unknown smoothing method.
    """
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


@lru_cache(maxsize=16)
def _figure_names(order: int) -> tuple[str, ...]:
    """The keys of BLEU's corpus figures for ``order`` n-gram orders."""
    return ("score", *(f"precision_{k}" for k in range(1, order + 1)), "bp", "sys_len", "ref_len")


def bleu_figures(score: float, precisions, bp: float, sys_len: int, ref_len: int) -> dict:
    """BLEU's corpus figures in their order: ``score``, ``precision_1..N`` (percent), ``bp``,
    ``sys_len``, ``ref_len``."""
    if len(precisions) == 4:  # the default order spelled out: a third of zip's cost, paid per sentence_score
        return {"score": score, "precision_1": precisions[0], "precision_2": precisions[1],
                "precision_3": precisions[2], "precision_4": precisions[3], "bp": bp, "sys_len": sys_len,
                "ref_len": ref_len}
    return dict(zip(_figure_names(len(precisions)), (score, *precisions, bp, sys_len, ref_len)))


def bleu_tokenizer(tokenize: str | Tokenizer) -> Tokenizer:
    """The tokeniser of a BLEU setting: one of sacrebleu's names
    (:func:`~qascore.text.sacrebleu_tokenizers.get_sacrebleu_tokenizer`) or a tokeniser object of
    the one protocol (:class:`~qascore.text.tokenizers.TokenizerBase`), used as given."""
    return tokenize if isinstance(tokenize, TokenizerBase) else get_sacrebleu_tokenizer(tokenize)  # type: ignore[arg-type]


def bleu_settings(tokenize: str | Tokenizer = "13a", *, lowercase: bool = False, smooth_method: str = "exp",
                  smooth_value=None, max_ngram_order: int = 4, effective_order: bool = False,
                  n_jobs: int | None = None) -> dict:
    """BLEU's options checked: ``tokenizer`` (:func:`bleu_tokenizer` of ``tokenize``), ``lowercase``,
    ``smooth_method``, ``smooth_value``, ``max_ngram_order``, ``effective_order`` and ``n_jobs``
    (resolved), as :class:`BLEU` holds them; a bad one raises a one-line error naming it."""
    check_smoothing(smooth_method, smooth_value)
    return {"tokenizer": bleu_tokenizer(tokenize), "lowercase": check_flag(lowercase, "lowercase"),
            "smooth_method": smooth_method, "smooth_value": smooth_value,
            "max_ngram_order": check_int(max_ngram_order, "max_ngram_order", low=1, high=MAX_ORDER),
            "effective_order": check_flag(effective_order, "effective_order"), "n_jobs": resolve_n_jobs(n_jobs)}


def bleu_signature(tokenizer: Tokenizer, *, lowercase: bool = False, smooth_method: str = "exp",
                   smooth_value=None, max_ngram_order: int = 4, effective_order: bool = False,
                   nrefs: str | int | None = None) -> str:
    """The signature of BLEU's settings; ``nrefs`` (references per hypothesis, or ``var``) when known."""
    smooth = smooth_method
    if SMOOTH_DEFAULTS[smooth] is not None:
        value = SMOOTH_DEFAULTS[smooth] if smooth_value is None else smooth_value
        smooth += f"[{value:.2f}]"
    counted = {} if nrefs is None else {"nrefs": nrefs}
    return make_signature("bleu", **counted, case="lc" if lowercase else "mixed", eff=effective_order,
                          tok=tokenizer.signature(), smooth=smooth, ngram=max_ngram_order)


def _pack(texts, segment_starts, tokenizer: Tokenizer, lowercase: bool, n_jobs: int) -> tuple[np.ndarray, np.ndarray]:
    """Token ids and row offsets of the preprocessed texts; ids agree at least within each
    segment (rows ``segment_starts[i]`` up to the next start)."""
    if lowercase:
        texts = [t.lower() for t in texts]
    if tokenizer.name == "13a":  # compiled tokeniser + per-segment interning, the common case
        from .._kernels.bleu_tok13a import tokenize_13a_packed

        ids, offsets, _ = tokenize_13a_packed(texts, segment_starts, pool_threads(n_jobs))
        return ids, offsets
    lines = [t.rstrip() for t in texts]  # sacrebleu's preprocessing (preprocess_segment), batched
    packed = tokenizer.encode_batch(lines, Vocabulary(), n_jobs)
    return packed.ids, packed.offsets


def segment_statistics_of(seg: Segments, tokenizer: Tokenizer, *, lowercase: bool = False,
                          max_ngram_order: int = 4, n_jobs: int | None = None) -> BleuStatistics:
    """Sufficient statistics of every segment of a batch already laid out
    (:mod:`qascore.lexical.segments`), with settings already checked (as :class:`BLEU` holds them)."""
    from .._kernels.ngram import clipped_ngram_matches, ngram_totals

    hyp_rows, ref_rows, groups = seg.hyp_rows, seg.ref_rows, seg.groups
    q = len(hyp_rows)
    ids, offsets = _pack(seg.lines, hyp_rows, tokenizer, lowercase, resolve_n_jobs(n_jobs))
    lengths = np.diff(offsets)
    correct = clipped_ngram_matches(ids, offsets, hyp_rows, ids, offsets, ref_rows, groups, max_ngram_order,
                                    threads_for(q, n_jobs))
    sys_len = lengths[hyp_rows]
    return BleuStatistics(sys_len, closest_reference_lengths(sys_len, lengths[ref_rows], groups),
                          correct, ngram_totals(sys_len, max_ngram_order))


def sentence_counts(lines: list, tokenizer: Tokenizer, *, lowercase: bool = False,
                    max_ngram_order: int = 4) -> tuple[int, int, list, list]:
    """(sys_len, ref_len, correct, total) as Python numbers for one segment given as
    ``[hypothesis, *references]``, exact ``str`` each (:func:`~qascore.lexical.segments.single_segment_lines`):
    the per-call road of the sentence-level entry points, on the kernels' one-segment functions
    (no arrays, no threads)."""
    if lowercase:
        lines = [t.lower() for t in lines]
    if tokenizer.name == "13a":
        ids, lengths = tokenize_13a_segment(lines)
    else:
        token_ids, lengths = pack_token_lists([preprocess_segment(t, tokenizer) for t in lines])
        ids = np.array(token_ids, dtype=np.int32).tobytes()
    order = max_ngram_order
    correct = segment_clipped_matches(ids, lengths, order)
    sys_len = lengths[0]
    if len(lengths) == 2:
        ref_len = lengths[1]
    else:  # the closest reference length, ties to the shorter (sacrebleu's _get_closest_ref_len)
        ref_len = min([(abs(length - sys_len), length) for length in lengths[1:]])[1]
    if sys_len >= order:
        return sys_len, ref_len, correct, list(range(sys_len, sys_len - order, -1))
    return sys_len, ref_len, correct, [max(sys_len - n, 0) for n in range(order)]


def summed_statistics(stats: BleuStatistics, references) -> Statistics:
    """Corpus statistics of per-segment statistics: ``sys_len``, ``ref_len``, ``correct`` and
    ``total`` (per n-gram order) summed over segments, and the reference counts behind ``nrefs``."""
    return Statistics({"sys_len": int(stats.sys_len.sum()), "ref_len": int(stats.ref_len.sum()),
                       "correct": stats.correct.sum(axis=0), "total": stats.total.sum(axis=0),
                       **reference_count_sums(references)}, len(stats))


class BLEU(Metric):
    """BLEU with sacrebleu's settings: ``tokenize`` one of sacrebleu's tokeniser names (13a, none,
    intl, zh, char; ja-mecab and ko-mecab with the extras ``ja`` / ``ko``; spm, flores101, flores200,
    spBLEU-1K with the extra ``spm`` and a model file, see
    :func:`~qascore.text.sacrebleu_tokenizers.spm_model_path`) or a tokeniser object of the one
    protocol (:func:`~qascore.text.tokenizers.get_tokenizer`), ``lowercase``,
    ``smooth_method`` in none/floor/add-k/exp (``smooth_value`` for floor and add-k),
    ``max_ngram_order`` and ``effective_order``. Batch calls use ``n_jobs`` threads.

    As a :class:`~qascore.metric.Metric`, over this module's functions: ``score`` is sentence BLEU
    of every hypothesis (:func:`sentence_bleu` with this object's settings; sacrebleu's
    ``sentence_bleu`` uses ``effective_order=True``), ``statistics`` are the corpus n-gram counts
    and lengths (integers, so they add exactly), and ``aggregate`` / ``compute`` /
    ``corpus_score`` give corpus BLEU (:func:`corpus_bleu`) as a :class:`~qascore.metric.CorpusScore`
    with ``score``, ``precision_1..N`` (percent), ``bp``, ``sys_len`` and ``ref_len``.
    ``sentence_score(hypothesis, references)`` is the same figures for one segment.

    Example:

        >>> from qascore.lexical import BLEU
        >>> bleu = BLEU()
        >>> hypotheses = ["the cat sat on the mat", "a dog barked"]
        >>> references = [["the cat sat on a mat"], ["the dog barked loudly", "a dog barked"]]
        >>> round(bleu.corpus_score(hypotheses, references)["score"], 4)
        59.6949
        >>> bleu.score(hypotheses, references).columns["bleu"].round(4).tolist()  # no 4-gram in 3 tokens
        [53.7285, 0.0]
        >>> round(bleu.sentence_score("the cat sat on the mat", ["the cat sat on a mat"])["score"], 4)
        53.7285
        >>> bleu.signature().split("|")[:-1]
        ['qascore:bleu', 'case:mixed', 'eff:no', 'tok:13a', 'smooth:exp', 'ngram:4']

    :param tokenize: a sacrebleu tokeniser name or a tokeniser object.
    :param lowercase: lowercase hypotheses and references first.
    :param smooth_method: ``none``, ``floor``, ``add-k`` or ``exp``.
    :param smooth_value: the value of ``floor`` (0.1) or ``add-k`` (1); None takes the default.
    :param max_ngram_order: the highest n-gram order (1 to the library's maximum).
    :param effective_order: stop the geometric mean at the highest order with any n-gram.
    :param n_jobs: threads of batch calls (None: the library's default).
    :raises ValueError: for an unknown tokeniser or smoothing method or a setting out of range; a
        call raises it for hypotheses and references of different lengths.
    """

    name = "bleu"

    tokenizer: Tokenizer
    lowercase: bool
    smooth_method: str
    smooth_value: float | None
    max_ngram_order: int
    effective_order: bool
    n_jobs: int

    def __init__(self, tokenize: str | Tokenizer = "13a", *, lowercase: bool = False, smooth_method: str = "exp",
                 smooth_value=None, max_ngram_order: int = 4, effective_order: bool = False,
                 n_jobs: int | None = None):
        self.__dict__.update(bleu_settings(tokenize, lowercase=lowercase, smooth_method=smooth_method,
                                           smooth_value=smooth_value, max_ngram_order=max_ngram_order,
                                           effective_order=effective_order, n_jobs=n_jobs))
        self._signatures: dict = {}

    def settings(self) -> dict:
        return {"tokenize": self.tokenizer.name, "lowercase": self.lowercase, "smooth_method": self.smooth_method,
                "smooth_value": self.smooth_value, "max_ngram_order": self.max_ngram_order,
                "effective_order": self.effective_order}

    def _scoring(self) -> dict:
        """The settings that turn statistics into scores, as the functions take them."""
        return {"smooth_method": self.smooth_method, "smooth_value": self.smooth_value,
                "effective_order": self.effective_order}

    def signature(self) -> str:
        """The settings of a score (a result's signature adds ``nrefs``)."""
        return bleu_signature(self.tokenizer, lowercase=self.lowercase, max_ngram_order=self.max_ngram_order,
                              **self._scoring())

    # -- statistics -------------------------------------------------------------------------
    def segment_statistics(self, hypotheses, references) -> BleuStatistics:
        """Sufficient statistics of every hypothesis against its own list of references, one row
        each (:class:`BleuStatistics`)."""
        return self.segment_statistics_of(segment_lines(hypotheses, references))

    def segment_statistics_of(self, seg: Segments) -> BleuStatistics:
        """:meth:`segment_statistics` of a batch already laid out (:mod:`qascore.lexical.segments`)."""
        return segment_statistics_of(seg, self.tokenizer, lowercase=self.lowercase,
                                     max_ngram_order=self.max_ngram_order, n_jobs=self.n_jobs)

    def sentence_statistics(self, lines: list) -> tuple[int, int, list, list]:
        """:func:`sentence_counts` of one segment ``[hypothesis, *references]`` with these settings."""
        return sentence_counts(lines, self.tokenizer, lowercase=self.lowercase, max_ngram_order=self.max_ngram_order)

    def statistics(self, hypotheses, references) -> Statistics:
        """Corpus statistics of a batch (:func:`bleu_statistics`)."""
        return bleu_statistics(hypotheses, references, self.tokenizer, lowercase=self.lowercase,
                               max_ngram_order=self.max_ngram_order, n_jobs=self.n_jobs)

    # -- scores ----------------------------------------------------------------------------
    def aggregate(self, statistics: Statistics) -> CorpusScore:
        """Corpus BLEU of summed statistics (:func:`bleu_aggregate`)."""
        return bleu_aggregate(statistics, self.tokenizer, lowercase=self.lowercase,
                              max_ngram_order=self.max_ngram_order, **self._scoring())

    def sentence_scores(self, hypotheses, references) -> np.ndarray:
        """BLEU of every hypothesis on its own (0-100), float64[Q]; one compiled pass for the batch."""
        return sentence_scores_of(self.segment_statistics(hypotheses, references), **self._scoring())

    def score(self, hypotheses, references) -> ExampleScores:
        """Sentence BLEU of every hypothesis (column ``bleu``, 0-100), as :meth:`sentence_scores`."""
        if not isinstance(references, (list, tuple, str)):  # read twice below; a str is refused by the layout
            references = list(references)
        return ExampleScores(self.name, {"bleu": self.sentence_scores(hypotheses, references)},
                             self._signature_of(count_nrefs(references)))

    def sentence_score(self, hypothesis: str, references) -> CorpusScore:
        """BLEU of one hypothesis against its references: the corpus figures of a one-segment corpus."""
        lines = single_segment_lines(hypothesis, references)
        if lines is None:  # any other argument shape: the batch layout checks and converts it
            return self.corpus_score([hypothesis], [references])
        sys_len, ref_len, correct, total = sentence_counts(lines, self.tokenizer, lowercase=self.lowercase,
                                                           max_ngram_order=self.max_ngram_order)
        score, prec, bp, _, _ = bleu_of_counts(correct, total, sys_len, ref_len, smooth_method=self.smooth_method,
                                               smooth_value=self.smooth_value, effective_order=self.effective_order)
        return CorpusScore(self.name, bleu_figures(score, prec, bp, sys_len, ref_len), 1,
                           self._signature_of(len(lines) - 1))

    def _signature_of(self, nrefs: str | int) -> str:
        """A result's signature for ``nrefs`` references, built once per count (a per-call cost otherwise)."""
        cache = self._signatures
        signature = cache.get(nrefs)
        if signature is None:
            signature = cache[nrefs] = bleu_signature(self.tokenizer, lowercase=self.lowercase,
                                                      max_ngram_order=self.max_ngram_order, nrefs=str(nrefs),
                                                      **self._scoring())
        return signature


def bleu_statistics(hypotheses, references, tokenizer: Tokenizer, *, lowercase: bool = False,
                    max_ngram_order: int = 4, n_jobs: int | None = None) -> Statistics:
    """Corpus statistics of a batch (:func:`summed_statistics` of :func:`segment_statistics_of`);
    statistics of batches add, so :func:`bleu_aggregate` of their sum scores the whole corpus.
    Settings as :func:`bleu_settings` checks them.

    Example:

        >>> from qascore.lexical.bleu import bleu_statistics
        >>> from qascore.text import get_tokenizer
        >>> stats = bleu_statistics(["the cat sat on the mat", "a dog barked"],
        ...                         [["the cat sat on a mat"], ["the dog barked loudly", "a dog barked"]],
        ...                         get_tokenizer("13a"))
        >>> stats.n, stats.sums["sys_len"], stats.sums["ref_len"], stats.sums["correct"].tolist()
        (2, 9, 9, [8, 5, 3, 1])

    :param hypotheses: the system's texts.
    :param references: per hypothesis, a list of its reference texts.
    :param tokenizer: a tokeniser object (``get_tokenizer("13a")``: sacrebleu's default).
    :param lowercase: lowercase hypotheses and references first.
    :param max_ngram_order: the highest n-gram order counted.
    :param n_jobs: threads (None: the library's default).
    :returns: a :class:`~qascore.metric.Statistics` of summed lengths, matches and totals.
    :raises ValueError: for hypotheses and references of different lengths or a hypothesis without
        references.
    :raises TypeError: for a text that is not a str.
    """
    if not isinstance(references, (list, tuple, str)):  # read twice below; a str is refused by the layout
        references = list(references)
    seg = segment_lines(hypotheses, references)
    stats = segment_statistics_of(seg, tokenizer, lowercase=lowercase, max_ngram_order=max_ngram_order, n_jobs=n_jobs)
    return summed_statistics(stats, references)


def sentence_scores_of(stats: BleuStatistics, *, smooth_method: str = "exp", smooth_value=None,
                       effective_order: bool = False) -> np.ndarray:
    """BLEU (0-100) of every row of per-segment statistics, float64[Q]."""
    return bleu_from_statistics(stats.correct, stats.total, stats.sys_len, stats.ref_len, smooth_method=smooth_method,
                                smooth_value=smooth_value, effective_order=effective_order)[0]


def bleu_aggregate(statistics: Statistics, tokenizer: Tokenizer, *, lowercase: bool = False,
                   smooth_method: str = "exp", smooth_value=None, max_ngram_order: int = 4,
                   effective_order: bool = False) -> CorpusScore:
    """Corpus BLEU of summed statistics (:func:`summed_statistics`, or several batches' added):
    ``score``, ``precision_1..N`` (percent), ``bp``, ``sys_len`` and ``ref_len``.

    Example:

        >>> from qascore.lexical.bleu import bleu_aggregate, bleu_statistics
        >>> from qascore.text import get_tokenizer
        >>> tokenizer = get_tokenizer("13a")
        >>> first = bleu_statistics(["the cat sat on the mat"], [["the cat sat on a mat"]], tokenizer)
        >>> second = bleu_statistics(["a dog barked"], [["the dog barked loudly", "a dog barked"]], tokenizer)
        >>> round(bleu_aggregate(first + second, tokenizer)["score"], 4)  # as corpus_bleu of both
        59.6949

    :param statistics: summed statistics (:func:`bleu_statistics`).
    :param tokenizer: the tokeniser the statistics were counted with (for the signature).
    :param lowercase: whether they were counted lowercased (for the signature).
    :param smooth_method: ``none``, ``floor``, ``add-k`` or ``exp``.
    :param smooth_value: the value of ``floor`` or ``add-k`` (None: the method's default).
    :param max_ngram_order: the highest n-gram order counted.
    :param effective_order: stop the geometric mean at the highest order with any n-gram.
    :returns: a :class:`~qascore.metric.CorpusScore`.
    :raises ValueError: for an unknown smoothing method.
    """
    sys_len, ref_len = int(statistics.sums["sys_len"]), int(statistics.sums["ref_len"])
    score, prec, bp, _, _ = bleu_from_statistics(statistics.sums["correct"], statistics.sums["total"], sys_len,
                                                 ref_len, smooth_method=smooth_method, smooth_value=smooth_value,
                                                 effective_order=effective_order)
    values = bleu_figures(float(score[0]), prec[0].tolist(), float(bp[0]), sys_len, ref_len)
    signature = bleu_signature(tokenizer, lowercase=lowercase, smooth_method=smooth_method, smooth_value=smooth_value,
                               max_ngram_order=max_ngram_order, effective_order=effective_order,
                               nrefs=nrefs_of_sums(statistics))
    return CorpusScore(BLEU.name, values, statistics.n, signature)


def _split_settings(settings: dict) -> tuple[dict, dict]:
    """Checked settings (:func:`bleu_settings`) split into those of the statistics and of the score."""
    counting = {k: settings[k] for k in ("lowercase", "max_ngram_order", "n_jobs")}
    scoring = {k: settings[k] for k in ("smooth_method", "smooth_value", "effective_order")}
    return counting, scoring


def corpus_bleu(hypotheses, references, **options) -> CorpusScore:
    """Corpus BLEU (:func:`bleu_statistics`, then :func:`bleu_aggregate`) with :class:`BLEU`'s options;
    ``references[i]`` lists hypothesis i's references (any number per hypothesis).

    Example:

        >>> from qascore.lexical import corpus_bleu
        >>> result = corpus_bleu(["the cat sat on the mat", "a dog barked"],
        ...                      [["the cat sat on a mat"], ["the dog barked loudly", "a dog barked"]])
        >>> round(result["score"], 4), result["bp"], result["sys_len"], result["ref_len"]
        (59.6949, 1.0, 9, 9)
        >>> result.signature.split("|")[:4]
        ['qascore:bleu', 'nrefs:var', 'case:mixed', 'eff:no']

    :param hypotheses: the system's texts.
    :param references: per hypothesis, a list of its reference texts.
    :param options: :class:`BLEU`'s keyword options (``tokenize``, ``lowercase``, ``smooth_method``, ...).
    :returns: a :class:`~qascore.metric.CorpusScore` with ``score``, ``precision_1..N`` (percent),
        ``bp``, ``sys_len`` and ``ref_len``.
    :raises ValueError: for a bad option, or hypotheses and references of different lengths.
    """
    settings = bleu_settings(**options)
    counting, scoring = _split_settings(settings)
    statistics = bleu_statistics(hypotheses, references, settings["tokenizer"], **counting)
    return bleu_aggregate(statistics, settings["tokenizer"], lowercase=counting["lowercase"],
                          max_ngram_order=counting["max_ngram_order"], **scoring)


def sentence_bleu(hypotheses, references, *, effective_order: bool = True, **options) -> np.ndarray:
    """Sentence BLEU of every hypothesis of a batch, float64[Q] (effective order on, as sacrebleu's
    ``sentence_bleu``); other options as :class:`BLEU`'s.

    Example:

        >>> from qascore.lexical import sentence_bleu
        >>> sentence_bleu(["the cat sat on the mat", "a dog barked"],
        ...               [["the cat sat on a mat"], ["the dog barked loudly", "a dog barked"]]).round(4).tolist()
        [53.7285, 100.0]

    :param hypotheses: the system's texts.
    :param references: per hypothesis, a list of its reference texts.
    :param effective_order: stop each geometric mean at the highest order the sentence has.
    :param options: :class:`BLEU`'s other keyword options.
    :returns: a float64 array of BLEU scores (0-100), one per hypothesis.
    :raises ValueError: for a bad option, or hypotheses and references of different lengths.
    """
    settings = bleu_settings(effective_order=effective_order, **options)
    counting, scoring = _split_settings(settings)
    stats = segment_statistics_of(segment_lines(hypotheses, references), settings["tokenizer"], **counting)
    return sentence_scores_of(stats, **scoring)
