"""chrF and chrF++, sentence and corpus level, with sacreBLEU's semantics (2.6) on a compiled kernel.

Owns: chrF's sufficient statistics (per character n-gram order, then per word n-gram order, the
triplet [hypothesis n-grams, reference n-grams, matches] against the reference whose F-score is
highest), its F-score with sacrebleu's effective-order and epsilon smoothing, and its signature.
Preprocessing is sacrebleu's: optional lowercasing (``str.lower``),
whitespace dropped from character n-grams unless ``whitespace``, and for word n-grams
``str.split()`` with one punctuation mark peeled off each word's end (else its start).

The functions are the road: :func:`corpus_chrf` (a :class:`~qascore.metric.CorpusScore`) is
:func:`chrf_statistics` then :func:`chrf_aggregate`, and :func:`sentence_chrf` scores every segment
on its own; :class:`CHRF` holds the settings and calls them as a :class:`~qascore.metric.Metric`.
References are given per hypothesis (``references[i]`` is the list of references of
``hypotheses[i]``); :mod:`qascore.compat.sacrebleu` accepts sacrebleu's reference streams and
returns sacrebleu's score objects.
"""
from __future__ import annotations

import numpy as np

from .._kernels.chrf import chrf_f_scores, chrf_segment_statistics
from .._parallel import resolve_n_jobs, threads_for
from ..metric import CorpusScore, ExampleScores, Metric, Statistics
from ..signature import count_nrefs, make_signature, nrefs_of_sums, reference_count_sums
from ..validate import MAX_ORDER, check_flag, check_int, check_weight
from .segments import Segments, segment_lines, single_segment_lines, single_segment_rows

__all__ = ["CHRF", "corpus_chrf", "sentence_chrf"]


def _beta_factor(beta) -> float:
    """``beta ** 2`` as the double sacrebleu's arithmetic uses (Python's int * float rounds the
    exact integer once); the kernel's F (qs_prf.h) adds the 1 of ``1 + beta ** 2``."""
    beta = check_weight(beta, "beta", allow_zero=True)
    return float(beta ** 2)


def chrf_settings(char_order: int = 6, word_order: int = 0, beta: float = 2, lowercase: bool = False,
                  whitespace: bool = False, eps_smoothing: bool = False, *, n_jobs: int | None = None) -> dict:
    """chrF's options checked, as :class:`CHRF` holds them (``n_jobs`` resolved); a bad one raises a
    one-line error naming it."""
    char_order = check_int(char_order, "char_order", low=0, high=MAX_ORDER)
    word_order = check_int(word_order, "word_order", low=0, high=MAX_ORDER)
    if char_order + word_order < 1:
        raise ValueError("char_order + word_order must be >= 1 (no n-grams to count otherwise)")
    _beta_factor(beta)
    return {"char_order": char_order, "word_order": word_order, "beta": beta,
            "lowercase": check_flag(lowercase, "lowercase"), "whitespace": check_flag(whitespace, "whitespace"),
            "eps_smoothing": check_flag(eps_smoothing, "eps_smoothing"), "n_jobs": resolve_n_jobs(n_jobs)}


def chrf_signature(*, char_order: int = 6, word_order: int = 0, beta: float = 2, lowercase: bool = False,
                   whitespace: bool = False, eps_smoothing: bool = False, nrefs: str | int | None = None) -> str:
    """The signature of chrF's settings; ``nrefs`` (references per hypothesis, or ``var``) when known."""
    counted = {} if nrefs is None else {"nrefs": nrefs}
    return make_signature("chrf", **counted, case="lc" if lowercase else "mixed", eff="no" if eps_smoothing else "yes",
                          nc=char_order, nw=word_order, space=whitespace, beta=beta)


def segment_statistics_of(seg: Segments, *, char_order: int = 6, word_order: int = 0, beta: float = 2,
                          lowercase: bool = False, whitespace: bool = False, eps_smoothing: bool = False,
                          n_jobs: int | None = None) -> np.ndarray:
    """int64[Q, 3 * (char_order + word_order)]: per segment of a batch already laid out
    (:mod:`qascore.lexical.segments`), sacrebleu's statistics row against its best reference
    (triplets [hypothesis n-grams, reference n-grams, matches] for character orders 1..char_order,
    then word orders 1..word_order). Settings as :func:`chrf_settings` checks them."""
    factor = _beta_factor(beta)
    lines = [t.lower() for t in seg.lines] if lowercase else seg.lines
    return chrf_segment_statistics(lines, seg.hyp_rows, seg.ref_rows, seg.groups, char_order, word_order, whitespace,
                                   factor, eps_smoothing, threads_for(len(seg.hyp_rows), n_jobs))


def f_scores_of(rows, *, beta: float = 2, eps_smoothing: bool = False) -> np.ndarray:
    """float64[Q]: sacrebleu's ``_compute_f_score`` (0-100) of every statistics row (checked
    integer rows, as :meth:`CHRF.f_scores` takes them), bit for bit."""
    return chrf_f_scores(rows, _beta_factor(beta), eps_smoothing)


def chrf_statistics(hypotheses, references, *, char_order: int = 6, word_order: int = 0, beta: float = 2,
                    lowercase: bool = False, whitespace: bool = False, eps_smoothing: bool = False,
                    n_jobs: int | None = None) -> Statistics:
    """Corpus statistics of a batch: the summed ``stats`` row and the reference counts behind
    ``nrefs``; statistics of batches add. Settings as :func:`chrf_settings` checks them."""
    if not isinstance(references, (list, tuple, str)):  # read twice below; a str is refused by the layout
        references = list(references)
    rows = segment_statistics_of(segment_lines(hypotheses, references), char_order=char_order, word_order=word_order,
                                 beta=beta, lowercase=lowercase, whitespace=whitespace, eps_smoothing=eps_smoothing,
                                 n_jobs=n_jobs)
    return Statistics({"stats": rows.sum(axis=0), **reference_count_sums(references)}, len(rows))


def chrf_aggregate(statistics: Statistics, *, char_order: int = 6, word_order: int = 0, beta: float = 2,
                   lowercase: bool = False, whitespace: bool = False, eps_smoothing: bool = False) -> CorpusScore:
    """Corpus chrF (``score``, 0-100) of summed statistics (:func:`chrf_statistics`)."""
    rows = checked_rows(np.asarray(statistics.sums["stats"])[None, :], char_order + word_order)
    score = float(f_scores_of(rows, beta=beta, eps_smoothing=eps_smoothing)[0])
    return CorpusScore(CHRF.name, {"score": score}, statistics.n,
                       chrf_signature(char_order=char_order, word_order=word_order, beta=beta, lowercase=lowercase,
                                      whitespace=whitespace, eps_smoothing=eps_smoothing,
                                      nrefs=nrefs_of_sums(statistics)))


def checked_rows(rows, order: int) -> np.ndarray:
    """Statistics rows as C-contiguous int64[Q, 3 * order], refused unless integer and >= 0."""
    array = np.asarray(rows)
    if array.dtype == object or not (np.issubdtype(array.dtype, np.integer) or array.size == 0):
        raise TypeError(f"chrF statistics must be integers, got dtype {array.dtype}")
    array = np.ascontiguousarray(array, dtype=np.int64)
    if array.ndim != 2 or array.shape[1] != 3 * order:
        raise ValueError(f"chrF statistics rows must have 3 * (char_order + word_order) = {3 * order} "
                         f"entries, got shape {array.shape}")
    if (array < 0).any():
        raise ValueError("chrF statistics must be >= 0")
    return array


def corpus_chrf(hypotheses, references, **options) -> CorpusScore:
    """Corpus chrF (:func:`chrf_statistics`, then :func:`chrf_aggregate`) with :class:`CHRF`'s
    options; ``references[i]`` lists hypothesis i's references.

    Example:

        >>> from qascore.lexical.chrf import corpus_chrf
        >>> hypotheses = ["the cat sat on the mat", "a dog barked"]
        >>> references = [["the cat sat on a mat"], ["the dog barked loudly", "a dog barked"]]
        >>> round(corpus_chrf(hypotheses, references)["score"], 4)
        81.9711
        >>> round(corpus_chrf(hypotheses, references, word_order=2)["score"], 4)  # chrF++
        81.5414

    :param hypotheses: the system's texts.
    :param references: per hypothesis, a list of its reference texts.
    :param options: :class:`CHRF`'s keyword options.
    :returns: a :class:`~qascore.metric.CorpusScore` with ``score`` (0-100).
    :raises ValueError: for a bad option, or hypotheses and references of different lengths.
    """
    settings = chrf_settings(**options)
    n_jobs = settings.pop("n_jobs")
    return chrf_aggregate(chrf_statistics(hypotheses, references, **settings, n_jobs=n_jobs), **settings)


def sentence_chrf(hypotheses, references, **options) -> np.ndarray:
    """chrF (0-100) of every hypothesis of a batch on its own, float64[Q]; options as :class:`CHRF`'s.

    Example:

        >>> from qascore.lexical.chrf import sentence_chrf
        >>> hypotheses = ["the cat sat on the mat", "a dog barked"]
        >>> references = [["the cat sat on a mat"], ["the dog barked loudly", "a dog barked"]]
        >>> sentence_chrf(hypotheses, references).round(4).tolist()
        [72.0848, 100.0]

    :param hypotheses: the system's texts.
    :param references: per hypothesis, a list of its reference texts.
    :param options: :class:`CHRF`'s keyword options.
    :returns: a float64 array of chrF scores, one per hypothesis.
    :raises ValueError: for a bad option, or hypotheses and references of different lengths.
    """
    settings = chrf_settings(**options)
    rows = segment_statistics_of(segment_lines(hypotheses, references), **settings)
    return f_scores_of(rows, beta=settings["beta"], eps_smoothing=settings["eps_smoothing"])


class CHRF(Metric):
    """chrF (``word_order=0``) and chrF++ (``word_order=2``) with sacrebleu's settings:
    ``char_order``, ``word_order``, ``beta`` (recall weighs beta times precision), ``lowercase``,
    ``whitespace`` (keep whitespace in character n-grams) and ``eps_smoothing`` (chrF++.py's
    epsilon smoothing instead of sacrebleu's effective order). Batch calls use ``n_jobs`` threads.

    As a :class:`~qascore.metric.Metric`, over this module's functions: ``score`` is sentence chrF
    of every hypothesis (:func:`sentence_chrf`), ``statistics`` are the summed integer triplets (so
    they add exactly) and ``aggregate`` / ``compute`` / ``corpus_score`` give corpus chrF
    (:func:`corpus_chrf`) as a :class:`~qascore.metric.CorpusScore` with ``score``;
    ``sentence_score(hypothesis, references)`` is the same for one segment.

    Example:

        >>> from qascore.lexical.chrf import CHRF
        >>> hypotheses = ["the cat sat on the mat", "a dog barked"]
        >>> references = [["the cat sat on a mat"], ["the dog barked loudly", "a dog barked"]]
        >>> chrf = CHRF(word_order=2)
        >>> round(chrf.corpus_score(hypotheses, references)["score"], 4)
        81.5414
        >>> chrf.signature().split("|")[:-1]
        ['qascore:chrf', 'case:mixed', 'eff:yes', 'nc:6', 'nw:2', 'space:no', 'beta:2']

    :raises ValueError: for a negative order, no n-gram order at all, or another bad setting.
    """

    name = "chrf"
    char_order: int
    word_order: int
    beta: float
    lowercase: bool
    whitespace: bool
    eps_smoothing: bool
    n_jobs: int

    def __init__(self, char_order: int = 6, word_order: int = 0, beta: float = 2, lowercase: bool = False,
                 whitespace: bool = False, eps_smoothing: bool = False, *, n_jobs: int | None = None):
        self.__dict__.update(chrf_settings(char_order, word_order, beta, lowercase, whitespace, eps_smoothing,
                                           n_jobs=n_jobs))
        self._factor = _beta_factor(beta)
        self._signatures: dict = {}

    @property
    def order(self) -> int:
        """Character plus word n-gram orders: a statistics row holds 3 * order integers."""
        return self.char_order + self.word_order

    def settings(self) -> dict:
        return {"char_order": self.char_order, "word_order": self.word_order, "beta": self.beta,
                "lowercase": self.lowercase, "whitespace": self.whitespace, "eps_smoothing": self.eps_smoothing}

    def signature(self) -> str:
        """The settings of a score (a result's signature adds ``nrefs``)."""
        return chrf_signature(**self.settings())

    # -- statistics -------------------------------------------------------------------------
    def segment_statistics(self, hypotheses, references) -> np.ndarray:
        """:func:`segment_statistics_of` of every hypothesis against its own list of references."""
        return self.segment_statistics_of(segment_lines(hypotheses, references))

    def segment_statistics_of(self, seg: Segments) -> np.ndarray:
        """:func:`segment_statistics_of` of a batch already laid out (:mod:`qascore.lexical.segments`)."""
        return segment_statistics_of(seg, **self.settings(), n_jobs=self.n_jobs)

    def sentence_statistics(self, lines: list) -> np.ndarray:
        """:meth:`segment_statistics` (int64[1, 3 * order]) of one segment given as ``[hypothesis,
        *references]``, exact ``str`` each (:func:`~qascore.lexical.segments.single_segment_lines`):
        the per-call road of the sentence-level entry points (no batch layout, one thread)."""
        rows = single_segment_rows(len(lines) - 1)
        if self.lowercase:
            lines = [t.lower() for t in lines]
        return chrf_segment_statistics(lines, rows.hyp_rows, rows.ref_rows, rows.groups, self.char_order,
                                       self.word_order, self.whitespace, self._factor,
                                       self.eps_smoothing, 1)

    def sentence_f_score(self, lines: list) -> float:
        """chrF (0-100) of one segment ``[hypothesis, *references]`` (exact ``str`` each): the
        kernel's own rows go to the F-score kernel unchecked."""
        return float(chrf_f_scores(self.sentence_statistics(lines), self._factor, self.eps_smoothing)[0])

    def f_scores(self, rows) -> np.ndarray:
        """float64[Q]: sacrebleu's ``_compute_f_score`` (0-100) of every statistics row, bit for bit."""
        return chrf_f_scores(checked_rows(rows, self.order), self._factor, self.eps_smoothing)

    def f_score(self, statistics_row) -> float:
        """sacrebleu's ``_compute_f_score`` (0-100) of one statistics row (or of summed rows)."""
        row = np.asarray(statistics_row)
        if row.ndim != 1:
            raise ValueError(f"a statistics row is one-dimensional, got shape {row.shape}")
        return float(self.f_scores(row[None, :])[0])

    def statistics(self, hypotheses, references) -> Statistics:
        """Corpus statistics of a batch (:func:`chrf_statistics`)."""
        return chrf_statistics(hypotheses, references, **self.settings(), n_jobs=self.n_jobs)

    # -- scores ----------------------------------------------------------------------------
    def aggregate(self, statistics: Statistics) -> CorpusScore:
        """Corpus chrF of summed statistics (:func:`chrf_aggregate`)."""
        return chrf_aggregate(statistics, **self.settings())

    def sentence_scores(self, hypotheses, references) -> np.ndarray:
        """chrF of every hypothesis on its own (0-100), float64[Q]; one compiled pass for the batch."""
        return self.f_scores(self.segment_statistics(hypotheses, references))

    def score(self, hypotheses, references) -> ExampleScores:
        """Sentence chrF of every hypothesis (column ``chrf``, 0-100), as :meth:`sentence_scores`."""
        if not isinstance(references, (list, tuple, str)):  # read twice below
            references = list(references)
        return ExampleScores(self.name, {"chrf": self.sentence_scores(hypotheses, references)},
                             self._signature_of(count_nrefs(references)))

    def sentence_score(self, hypothesis: str, references) -> CorpusScore:
        """chrF of one hypothesis against its references: the corpus figures of a one-segment corpus."""
        lines = single_segment_lines(hypothesis, references)
        if lines is not None:  # the plain call: no batch layout
            return CorpusScore(self.name, {"score": self.sentence_f_score(lines)}, 1,
                               self._signature_of(len(lines) - 1))
        if isinstance(references, str):
            raise TypeError("references must be a list of strings, not a single string")
        return self.corpus_score([hypothesis], [list(references)])

    def _signature_of(self, nrefs: str | int) -> str:
        """A result's signature for ``nrefs`` references, built once per count (a per-call cost otherwise)."""
        cache = self._signatures
        signature = cache.get(nrefs)
        if signature is None:
            signature = cache[nrefs] = chrf_signature(**self.settings(), nrefs=str(nrefs))
        return signature
