"""TER (translation edit rate), sentence and corpus level, with sacreBLEU's semantics (2.6) on a
compiled shift search.

Owns: TER's segment statistics (the fewest edits over a hypothesis' references, shifts included,
and the mean reference length), sacrebleu's score formula with its empty-reference cases, and TER's
signature. The edit count is sacrebleu's own beam-limited search, not Tercom's (see
``kernels/ter.pyx``); the text goes through the ``tercom`` tokeniser
(:class:`~qascore.text.tercom.TercomTokenizer`).

The functions are the road: :func:`corpus_ter` (a :class:`~qascore.metric.CorpusScore`) is
:func:`ter_statistics` then :func:`ter_aggregate`, and :func:`sentence_ter` scores every segment on
its own; :class:`TER` holds the settings and calls them as a :class:`~qascore.metric.Metric`.
References are given per hypothesis (``references[i]`` is the list of references of
``hypotheses[i]``), at least one each; :mod:`qascore.compat.sacrebleu` accepts sacrebleu's
reference streams and returns sacrebleu's score objects.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from .._kernels.ter import shift_edit_counts
from .._parallel import resolve_n_jobs, threads_for
from ..metric import CorpusScore, ExampleScores, Metric, Statistics
from ..signature import count_nrefs, make_signature, nrefs_of_sums, reference_count_sums
from ..text.packing import Vocabulary
from ..text.tercom import TercomTokenizer
from ..text.tokenizers import WhitespaceTokenizer
from .segments import Segments, pack_token_lists, segment_lines, single_segment_lines, single_segment_rows

__all__ = ["TER", "corpus_ter", "sentence_ter", "summed_rows", "ter_from_statistics", "ter_from_statistics_batch"]

# A pair costs from a microsecond (short answers) to milliseconds (long ones with shifts): a thread
# pays for itself after a few dozen pairs.
_MIN_PAIRS_PER_THREAD = 32


def ter_from_statistics(num_edits, ref_length) -> float:
    """sacrebleu's TER (percent) of summed statistics: edits per reference word; with no reference
    words, 100 if there are edits and 0 if not.

    Example:

        >>> from qascore.lexical.ter import ter_from_statistics
        >>> ter_from_statistics(1, 4.0), ter_from_statistics(0, 0.0), ter_from_statistics(2, 0.0)
        (25.0, 0.0, 100.0)

    :param num_edits: the summed fewest edits of the segments.
    :param ref_length: the summed mean reference lengths (in words).
    :returns: TER in percent (above 100 when there are more edits than reference words).
    """
    if ref_length > 0:
        return 100 * (num_edits / ref_length)
    return 100.0 if num_edits > 0 else 0.0


def ter_from_statistics_batch(num_edits, ref_length) -> np.ndarray:
    """:func:`ter_from_statistics` of many rows at once, with the same float operations: float64[Q],
    or float32[Q] when both inputs are float32 (sacrebleu's bootstrap sums statistics in float32
    and scores them on numpy float32 scalars).

    Example:

        >>> import numpy as np
        >>> from qascore.lexical.ter import ter_from_statistics_batch
        >>> ter_from_statistics_batch([1, 3, 0], [4.0, 0.0, 0.0]).tolist()
        [25.0, 100.0, 0.0]
        >>> ter_from_statistics_batch(np.float32([1]), np.float32([3])).dtype
        dtype('float32')

    :param num_edits: the edits of each row.
    :param ref_length: the reference length of each row, as many as ``num_edits``.
    :returns: TER in percent of every row, float64 (float32 when both inputs are float32).
    """
    num_edits, ref_length = np.asarray(num_edits).reshape(-1), np.asarray(ref_length).reshape(-1)
    dtype = np.float32 if num_edits.dtype == ref_length.dtype == np.float32 else np.float64
    num_edits, ref_length = num_edits.astype(dtype, copy=False), ref_length.astype(dtype, copy=False)
    with np.errstate(divide="ignore", invalid="ignore"):
        rate = np.where(ref_length > 0, num_edits / ref_length, (num_edits > 0).astype(dtype))
    return 100 * rate


@lru_cache(maxsize=64)
def _pair_hypotheses(n_refs: int) -> np.ndarray:
    """The hypothesis row (0) of each of a segment's ``n_refs`` pairs, read-only, built once."""
    rows = np.zeros(n_refs, dtype=np.int64)
    rows.flags.writeable = False
    return rows


def _sequential_sum(values: np.ndarray) -> float:
    """Left-to-right float sum (sacrebleu adds segment statistics one by one; numpy's sum pairs them)."""
    return float(np.add.accumulate(values)[-1]) if len(values) else 0.0


def ter_tokenizer(normalized: bool = False, no_punct: bool = False, asian_support: bool = False,
                  case_sensitive: bool = False) -> TercomTokenizer:
    """TER's options checked, as the ``tercom`` tokeniser that holds them."""
    return TercomTokenizer(normalized=normalized, no_punct=no_punct, asian_support=asian_support,
                           case_sensitive=case_sensitive)


def ter_signature(tokenizer: TercomTokenizer, nrefs: str | int | None = None) -> str:
    """The signature of TER's settings (held by its ``tercom`` tokeniser), in sacrebleu's order;
    ``nrefs`` (references per hypothesis, or ``var``) when known."""
    counted = {} if nrefs is None else {"nrefs": nrefs}
    return make_signature("ter", **counted, case="mixed" if tokenizer.case_sensitive else "lc",
                          tok=tokenizer.signature(), norm=tokenizer.normalized, punct=not tokenizer.no_punct,
                          asian=tokenizer.asian_support)


def _words(seg: Segments, tokenizer: TercomTokenizer, n_jobs: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Token ids and offsets of the segments' words after sacrebleu's preprocessing:
    ``tokenizer(line.rstrip()).split()`` for a hypothesis, and the tokeniser applied twice to
    a reference (sacrebleu tokenises references when it caches them and again when it reads the
    cache; normalisation is not idempotent: ``jute's.`` -> ``jute's .`` -> ``jute 's .``).

    Without normalisation or punctuation removal all that is ``line.lower().split()``: rstrip
    only drops whitespace, lowercasing neither makes nor unmakes whitespace and is idempotent
    (checked over all of Unicode in the tests), and the split runs in C."""
    tok = tokenizer
    lines = seg.lines
    if not tok.trivial:
        lines = [tok(line.rstrip()) for line in lines]
        for k in seg.ref_rows.tolist():
            lines[k] = tok(lines[k])  # the tokeniser's output has no trailing whitespace to strip
    elif not tok.case_sensitive:
        lines = [line.lower() for line in lines]
    packed = WhitespaceTokenizer().encode_batch(lines, Vocabulary(), n_jobs)
    return packed.ids, packed.offsets


def segment_statistics_of(seg: Segments, tokenizer: TercomTokenizer, n_jobs: int | None = None) -> np.ndarray:
    """sacrebleu's segment statistics of a batch already laid out (:mod:`qascore.lexical.segments`),
    float64[Q, 2]: per hypothesis, the fewest edits over its references and the mean length of its
    references (in words)."""
    ids, offsets = _words(seg, tokenizer, n_jobs)
    counts = np.diff(seg.groups)
    pair_hyp = np.repeat(seg.hyp_rows, counts)
    edits = shift_edit_counts(ids, offsets, pair_hyp, seg.ref_rows,
                              threads_for(len(pair_hyp), n_jobs, _MIN_PAIRS_PER_THREAD))
    out = np.empty((len(seg.hyp_rows), 2), dtype=np.float64)
    if len(edits):
        starts = seg.groups[:-1]
        out[:, 0] = np.minimum.reduceat(edits, starts)
        # integer sums, then one division: Python's int / int for values below 2**53
        out[:, 1] = np.add.reduceat(np.diff(offsets)[seg.ref_rows], starts) / counts
    return out


def sentence_counts(lines: list, tokenizer: TercomTokenizer) -> tuple[int, float]:
    """(fewest edits, mean reference length) of one segment given as ``[hypothesis, *references]``,
    exact ``str`` each (:func:`~qascore.lexical.segments.single_segment_lines`), with
    :func:`segment_statistics_of`'s preprocessing: the per-call road of the sentence-level entry points."""
    tok = tokenizer
    if not tok.trivial:
        lines = [tok(line.rstrip()) for line in lines]
        lines[1:] = [tok(line) for line in lines[1:]]  # references twice, as sacrebleu (see _words)
    elif not tok.case_sensitive:
        lines = [line.lower() for line in lines]
    ids, lengths = pack_token_lists([line.split() for line in lines])
    offsets = [0]
    for length in lengths:
        offsets.append(offsets[-1] + length)
    n_refs = len(lines) - 1
    edits = shift_edit_counts(np.array(ids, dtype=np.int32), np.array(offsets, dtype=np.int64),
                              _pair_hypotheses(n_refs), single_segment_rows(n_refs).ref_rows, 1)
    return min(edits.tolist()), sum(lengths[1:]) / n_refs  # int / int: the float the batch road gives


def summed_rows(rows) -> tuple[int, float]:
    """(edits, reference length) of per-segment rows summed as sacrebleu sums them: the edits as an
    int, the lengths left to right. With :func:`ter_from_statistics` it turns the rows of
    :meth:`TER.segment_statistics` (of a whole corpus, or of a resample of its segments) into
    corpus TER.

    Example:

        >>> from qascore.lexical.ter import TER, summed_rows, ter_from_statistics
        >>> hypotheses = ["the cat sat on the mat", "a dog barked"]
        >>> references = [["the cat sat on a mat"], ["the dog barked loudly", "a dog barked"]]
        >>> rows = TER().segment_statistics(hypotheses, references)
        >>> rows.tolist()
        [[1.0, 6.0], [0.0, 3.5]]
        >>> summed_rows(rows), ter_from_statistics(*summed_rows(rows))
        ((1, 9.5), 10.526315789473683)

    :param rows: per segment, ``[edits, mean reference length]`` (an array of shape ``(Q, 2)``).
    :returns: the summed edits (an int) and the summed reference lengths (a float).
    """
    rows = np.asarray(rows, dtype=np.float64).reshape(-1, 2)
    return int(rows[:, 0].sum()), _sequential_sum(rows[:, 1])


def ter_statistics(hypotheses, references, tokenizer: TercomTokenizer, n_jobs: int | None = None) -> Statistics:
    """Corpus statistics of a batch: ``num_edits`` (an int) and ``ref_length`` summed over
    segments, and the reference counts behind ``nrefs``; statistics of batches add."""
    if not isinstance(references, (list, tuple, str)):  # read twice below; a str is refused by the layout
        references = list(references)
    num_edits, ref_length = summed_rows(segment_statistics_of(segment_lines(hypotheses, references), tokenizer,
                                                              n_jobs))
    return Statistics({"num_edits": num_edits, "ref_length": ref_length, **reference_count_sums(references)},
                      len(references))


def ter_aggregate(statistics: Statistics, tokenizer: TercomTokenizer) -> CorpusScore:
    """Corpus TER of summed statistics (:func:`ter_statistics`): ``score`` (percent), ``num_edits``
    and ``ref_length``."""
    num_edits, ref_length = int(statistics.sums["num_edits"]), float(statistics.sums["ref_length"])
    values = {"score": ter_from_statistics(num_edits, ref_length), "num_edits": num_edits, "ref_length": ref_length}
    return CorpusScore(TER.name, values, statistics.n, ter_signature(tokenizer, nrefs_of_sums(statistics)))


def corpus_ter(hypotheses, references, *, n_jobs: int | None = None, **options) -> CorpusScore:
    """Corpus TER (:func:`ter_statistics`, then :func:`ter_aggregate`) with :class:`TER`'s options;
    ``references[i]`` lists hypothesis i's references.

    Example:

        >>> from qascore.lexical.ter import corpus_ter
        >>> hypotheses = ["the cat sat on the mat", "a dog barked"]
        >>> references = [["the cat sat on a mat"], ["the dog barked loudly", "a dog barked"]]
        >>> corpus_ter(hypotheses, references).values  # 1 edit over 6 + (4 + 3) / 2 reference words
        {'score': 10.526315789473683, 'num_edits': 1, 'ref_length': 9.5}

    :param hypotheses: the system's texts.
    :param references: per hypothesis, a non-empty list of its reference texts.
    :param n_jobs: threads (None: the library's default).
    :param options: :class:`TER`'s keyword options.
    :returns: a :class:`~qascore.metric.CorpusScore` with ``score``, ``num_edits`` and ``ref_length``.
    :raises ValueError: for hypotheses and references of different lengths.
    """
    tokenizer = ter_tokenizer(**options)
    return ter_aggregate(ter_statistics(hypotheses, references, tokenizer, resolve_n_jobs(n_jobs)), tokenizer)


def sentence_ter(hypotheses, references, *, n_jobs: int | None = None, **options) -> np.ndarray:
    """TER (percent) of every hypothesis of a batch on its own, float64[Q]; options as :class:`TER`'s.

    Example:

        >>> from qascore.lexical.ter import sentence_ter
        >>> hypotheses = ["the cat sat on the mat", "a dog barked"]
        >>> references = [["the cat sat on a mat"], ["the dog barked loudly", "a dog barked"]]
        >>> sentence_ter(hypotheses, references).round(4).tolist()
        [16.6667, 0.0]

    :param hypotheses: the system's texts.
    :param references: per hypothesis, a non-empty list of its reference texts.
    :param n_jobs: threads (None: the library's default).
    :param options: :class:`TER`'s keyword options.
    :returns: a float64 array of TER scores, one per hypothesis.
    :raises ValueError: for hypotheses and references of different lengths.
    """
    stats = segment_statistics_of(segment_lines(hypotheses, references), ter_tokenizer(**options),
                                  resolve_n_jobs(n_jobs))
    return ter_from_statistics_batch(stats[:, 0], stats[:, 1])


class TER(Metric):
    """TER with sacrebleu's settings: ``normalized``, ``no_punct``, ``asian_support`` and
    ``case_sensitive`` (see :class:`~qascore.text.tercom.TercomTokenizer`, the ``tercom`` tokeniser
    that holds them). Batch calls use ``n_jobs`` threads.

    As a :class:`~qascore.metric.Metric`, over this module's functions: ``score`` is sentence TER of
    every hypothesis (:func:`sentence_ter`), ``statistics`` are the summed edits and mean reference
    lengths, and ``aggregate`` / ``compute`` / ``corpus_score`` give corpus TER (:func:`corpus_ter`)
    as a :class:`~qascore.metric.CorpusScore` with ``score``, ``num_edits`` and ``ref_length``;
    ``sentence_score(hypothesis, references)`` is the same for one segment.

    Example:

        >>> from qascore.lexical.ter import TER
        >>> hypotheses = ["the cat sat on the mat", "a dog barked"]
        >>> references = [["the cat sat on a mat"], ["the dog barked loudly", "a dog barked"]]
        >>> ter = TER()
        >>> ter.corpus_score(hypotheses, references)["score"]
        10.526315789473683
        >>> ter.signature().split("|")[:-1]
        ['qascore:ter', 'case:lc', 'tok:tercom', 'norm:no', 'punct:yes', 'asian:no']
    """

    name = "ter"

    def __init__(self, normalized: bool = False, no_punct: bool = False, asian_support: bool = False,
                 case_sensitive: bool = False, *, n_jobs: int | None = None):
        self.tokenizer = ter_tokenizer(normalized, no_punct, asian_support, case_sensitive)
        self.n_jobs = resolve_n_jobs(n_jobs)
        self._signatures: dict = {}

    def settings(self) -> dict:
        tok = self.tokenizer
        return {"normalized": tok.normalized, "no_punct": tok.no_punct, "asian_support": tok.asian_support,
                "case_sensitive": tok.case_sensitive}

    def signature(self) -> str:
        """The settings of a score, in sacrebleu's order (a result's signature adds ``nrefs``)."""
        return ter_signature(self.tokenizer)

    # -- statistics -------------------------------------------------------------------------
    def segment_statistics(self, hypotheses, references) -> np.ndarray:
        """sacrebleu's segment statistics, float64[Q, 2]: per hypothesis, the fewest edits over
        its references and the mean length of its references (in words)."""
        return self.segment_statistics_of(segment_lines(hypotheses, references))

    def segment_statistics_of(self, seg: Segments) -> np.ndarray:
        """:func:`segment_statistics_of` of a batch already laid out (:mod:`qascore.lexical.segments`)."""
        return segment_statistics_of(seg, self.tokenizer, self.n_jobs)

    def sentence_statistics(self, lines: list) -> tuple[int, float]:
        """:func:`sentence_counts` of one segment ``[hypothesis, *references]`` with these settings."""
        return sentence_counts(lines, self.tokenizer)

    def statistics(self, hypotheses, references) -> Statistics:
        """Corpus statistics of a batch (:func:`ter_statistics`)."""
        return ter_statistics(hypotheses, references, self.tokenizer, self.n_jobs)

    # -- scores ----------------------------------------------------------------------------
    def aggregate(self, statistics: Statistics) -> CorpusScore:
        """Corpus TER of summed statistics (:func:`ter_aggregate`)."""
        return ter_aggregate(statistics, self.tokenizer)

    def sentence_scores(self, hypotheses, references) -> np.ndarray:
        """TER of every hypothesis on its own (percent), float64[Q]; one compiled pass for the batch."""
        stats = self.segment_statistics(hypotheses, references)
        return ter_from_statistics_batch(stats[:, 0], stats[:, 1])

    def score(self, hypotheses, references) -> ExampleScores:
        """Sentence TER of every hypothesis (column ``ter``, percent), as :meth:`sentence_scores`."""
        if not isinstance(references, (list, tuple, str)):
            references = list(references)
        return ExampleScores(self.name, {"ter": self.sentence_scores(hypotheses, references)},
                             self._signature_of(count_nrefs(references)))

    def sentence_score(self, hypothesis: str, references) -> CorpusScore:
        """TER of one hypothesis against its references: the corpus figures of a one-segment corpus."""
        lines = single_segment_lines(hypothesis, references)
        if lines is not None:  # the plain call: no batch layout
            num_edits, ref_length = sentence_counts(lines, self.tokenizer)
            values = {"score": ter_from_statistics(num_edits, ref_length), "num_edits": num_edits,
                      "ref_length": ref_length}
            return CorpusScore(self.name, values, 1, self._signature_of(len(lines) - 1))
        if isinstance(references, str):
            raise TypeError("references must be a list of strings, not a single string")
        return self.corpus_score([hypothesis], [list(references)])

    def _signature_of(self, nrefs: str | int) -> str:
        """A result's signature for ``nrefs`` references, built once per count (a per-call cost otherwise)."""
        cache = self._signatures
        signature = cache.get(nrefs)
        if signature is None:
            signature = cache[nrefs] = ter_signature(self.tokenizer, str(nrefs))
        return signature
