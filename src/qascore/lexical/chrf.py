"""chrF and chrF++, sentence and corpus level, with sacreBLEU's semantics (2.6) on a compiled kernel.

Owns: chrF's sufficient statistics (per character n-gram order, then per word n-gram order, the
triplet [hypothesis n-grams, reference n-grams, matches] against the reference whose F-score is
highest), its F-score with sacrebleu's effective-order and epsilon smoothing, and the score
objects with signatures. Preprocessing is sacrebleu's: optional lowercasing (``str.lower``),
whitespace dropped from character n-grams unless ``whitespace``, and for word n-grams
``str.split()`` with one punctuation mark peeled off each word's end (else its start).

References are given per hypothesis (``references[i]`` is the list of references of
``hypotheses[i]``); the sacrebleu-compatible wrapper accepts sacrebleu's reference streams.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._kernels.chrf import chrf_f_scores, chrf_segment_statistics
from .._parallel import resolve_n_jobs, threads_for
from ..metric import CorpusScore, ExampleScores, Metric, Statistics
from ..signature import count_nrefs, make_signature, nrefs_of_sums, reference_count_sums
from ..validate import MAX_ORDER, check_flag, check_int, check_weight
from .segments import Segments, segment_lines, single_segment_lines, single_segment_rows


@dataclass
class CHRFScore:
    """One chrF result (``score`` in [0, 100]) as sacrebleu's ``CHRFScore`` reports it."""

    score: float
    char_order: int
    word_order: int
    beta: float
    signature: str = field(default="")

    @property
    def name(self) -> str:
        """``chrF2`` for chrF, ``chrF2++`` for chrF++ (one ``+`` per word order)."""
        return f"chrF{self.beta}" + "+" * self.word_order

    def __str__(self) -> str:
        text = f"{self.name} = {self.score:.2f}"
        return f"{text} [{self.signature}]" if self.signature else text


def _beta_factors(beta) -> tuple[float, float]:
    """``beta ** 2`` and ``1 + beta ** 2`` as the doubles sacrebleu's arithmetic uses (Python's
    int * float rounds the exact integer once)."""
    beta = check_weight(beta, "beta", allow_zero=True)
    factor = beta ** 2
    return float(factor), float(1 + factor)


class CHRF(Metric):
    """chrF (``word_order=0``) and chrF++ (``word_order=2``) with sacrebleu's settings:
    ``char_order``, ``word_order``, ``beta`` (recall weighs beta times precision), ``lowercase``,
    ``whitespace`` (keep whitespace in character n-grams) and ``eps_smoothing`` (chrF++.py's
    epsilon smoothing instead of sacrebleu's effective order). Batch calls use ``n_jobs`` threads.

    As a :class:`~qascore.metric.Metric`: ``score`` is sentence chrF of every hypothesis,
    ``statistics`` are the summed integer triplets (so they add exactly) and ``aggregate`` /
    ``compute`` give corpus chrF, bit for bit the ``score`` of :meth:`corpus_score` on the whole
    stream. :meth:`corpus_score` returns sacrebleu's result object (:class:`CHRFScore`).
    """

    name = "chrf"

    def __init__(self, char_order: int = 6, word_order: int = 0, beta: float = 2, lowercase: bool = False,
                 whitespace: bool = False, eps_smoothing: bool = False, *, n_jobs: int | None = None):
        self.char_order = check_int(char_order, "char_order", low=0, high=MAX_ORDER)
        self.word_order = check_int(word_order, "word_order", low=0, high=MAX_ORDER)
        if self.char_order + self.word_order < 1:
            raise ValueError("char_order + word_order must be >= 1 (no n-grams to count otherwise)")
        self._factor, self._factor1 = _beta_factors(beta)
        self.beta = beta
        self.lowercase = check_flag(lowercase, "lowercase")
        self.whitespace = check_flag(whitespace, "whitespace")
        self.eps_smoothing = check_flag(eps_smoothing, "eps_smoothing")
        self.n_jobs = resolve_n_jobs(n_jobs)

    @property
    def order(self) -> int:
        """Character plus word n-gram orders: a statistics row holds 3 * order integers."""
        return self.char_order + self.word_order

    def settings(self) -> dict:
        return {"char_order": self.char_order, "word_order": self.word_order, "beta": self.beta,
                "lowercase": self.lowercase, "whitespace": self.whitespace, "eps_smoothing": self.eps_smoothing}

    # -- statistics -------------------------------------------------------------------------
    def segment_statistics(self, hypotheses, references) -> np.ndarray:
        """int64[Q, 3 * order]: per hypothesis, sacrebleu's statistics row against its best
        reference (triplets [hypothesis n-grams, reference n-grams, matches] for character orders
        1..char_order, then word orders 1..word_order)."""
        return self.segment_statistics_of(segment_lines(hypotheses, references))

    def segment_statistics_of(self, seg: Segments) -> np.ndarray:
        """:meth:`segment_statistics` of a batch already laid out (:mod:`qascore.lexical.segments`)."""
        lines = [t.lower() for t in seg.lines] if self.lowercase else seg.lines
        return chrf_segment_statistics(lines, seg.hyp_rows, seg.ref_rows, seg.groups, self.char_order,
                                       self.word_order, self.whitespace, self._factor, self._factor1,
                                       self.eps_smoothing, threads_for(len(seg.hyp_rows), self.n_jobs))

    def sentence_statistics(self, lines: list) -> np.ndarray:
        """:meth:`segment_statistics` (int64[1, 3 * order]) of one segment given as ``[hypothesis,
        *references]``, exact ``str`` each (:func:`~qascore.lexical.segments.single_segment_lines`):
        the per-call road of the sentence-level entry points (no batch layout, one thread)."""
        rows = single_segment_rows(len(lines) - 1)
        if self.lowercase:
            lines = [t.lower() for t in lines]
        return chrf_segment_statistics(lines, rows.hyp_rows, rows.ref_rows, rows.groups, self.char_order,
                                       self.word_order, self.whitespace, self._factor, self._factor1,
                                       self.eps_smoothing, 1)

    def sentence_f_score(self, lines: list) -> float:
        """chrF (0-100) of one segment ``[hypothesis, *references]`` (exact ``str`` each): the
        kernel's own rows go to the F-score kernel unchecked."""
        return float(chrf_f_scores(self.sentence_statistics(lines), self._factor, self._factor1,
                                   self.eps_smoothing)[0])

    def _rows(self, rows) -> np.ndarray:
        """Statistics rows as C-contiguous int64[Q, 3 * order], refused unless integer and >= 0."""
        array = np.asarray(rows)
        if array.dtype == object or not (np.issubdtype(array.dtype, np.integer) or array.size == 0):
            raise TypeError(f"chrF statistics must be integers, got dtype {array.dtype}")
        array = np.ascontiguousarray(array, dtype=np.int64)
        if array.ndim != 2 or array.shape[1] != 3 * self.order:
            raise ValueError(f"chrF statistics rows must have 3 * (char_order + word_order) = {3 * self.order} "
                             f"entries, got shape {array.shape}")
        if (array < 0).any():
            raise ValueError("chrF statistics must be >= 0")
        return array

    def f_scores(self, rows) -> np.ndarray:
        """float64[Q]: sacrebleu's ``_compute_f_score`` (0-100) of every statistics row, bit for bit."""
        return chrf_f_scores(self._rows(rows), self._factor, self._factor1, self.eps_smoothing)

    def f_score(self, statistics_row) -> float:
        """sacrebleu's ``_compute_f_score`` (0-100) of one statistics row (or of summed rows)."""
        row = np.asarray(statistics_row)
        if row.ndim != 1:
            raise ValueError(f"a statistics row is one-dimensional, got shape {row.shape}")
        return float(self.f_scores(row[None, :])[0])

    def statistics(self, hypotheses, references) -> Statistics:
        """Corpus statistics of a batch: the summed ``stats`` row and the reference counts behind ``nrefs``."""
        if not isinstance(references, (list, tuple, str)):  # read twice below; a str is refused by the layout
            references = list(references)
        rows = self.segment_statistics(hypotheses, references)
        return Statistics({"stats": rows.sum(axis=0), **reference_count_sums(references)}, len(rows))

    # -- scores ----------------------------------------------------------------------------
    def signature(self, nrefs: str | int | None = None) -> str:
        """The settings of a score; ``nrefs`` (references per hypothesis, or ``var``) when known."""
        counted = {} if nrefs is None else {"nrefs": nrefs}
        return make_signature("chrf", **counted, case="lc" if self.lowercase else "mixed",
                              eff="no" if self.eps_smoothing else "yes", nc=self.char_order,
                              nw=self.word_order, space=self.whitespace, beta=self.beta)

    def score_statistics(self, stats, signature: str = "") -> CHRFScore:
        """Corpus chrF of already computed statistics: per-segment rows (:meth:`segment_statistics`)
        or :meth:`statistics` summed over several batches."""
        total = stats.sums["stats"] if isinstance(stats, Statistics) else self._rows(stats).sum(axis=0)
        return CHRFScore(self.f_score(total), self.char_order, self.word_order, self.beta, signature)

    def aggregate(self, statistics: Statistics) -> CorpusScore:
        """Corpus chrF (``score``, 0-100) of summed statistics."""
        score = self.score_statistics(statistics).score
        return CorpusScore(self.name, {"score": score}, statistics.n,
                           self.signature(nrefs_of_sums(statistics)))

    def corpus_score(self, hypotheses, references) -> CHRFScore:  # type: ignore[override]  # sacrebleu's shape
        """Corpus chrF: statistics summed over all segments, then one F-score."""
        if not isinstance(references, (list, tuple, str)):  # read twice below
            references = list(references)
        rows = self.segment_statistics(hypotheses, references)
        return self.score_statistics(rows, self.signature(count_nrefs(references)))

    def sentence_scores(self, hypotheses, references) -> np.ndarray:
        """chrF of every hypothesis on its own (0-100), float64[Q]; one compiled pass for the batch."""
        return self.f_scores(self.segment_statistics(hypotheses, references))

    def score(self, hypotheses, references) -> ExampleScores:
        """Sentence chrF of every hypothesis (column ``chrf``, 0-100), as :meth:`sentence_scores`."""
        if not isinstance(references, (list, tuple, str)):  # read twice below
            references = list(references)
        return ExampleScores(self.name, {"chrf": self.sentence_scores(hypotheses, references)},
                             self.signature(count_nrefs(references)))

    def sentence_score(self, hypothesis: str, references) -> CHRFScore:
        """chrF of one hypothesis against its references, as a full score object."""
        lines = single_segment_lines(hypothesis, references)
        if lines is not None:  # the plain call: no batch layout
            return CHRFScore(self.sentence_f_score(lines), self.char_order, self.word_order, self.beta,
                             self._sentence_signature(len(lines) - 1))
        if isinstance(references, str):
            raise TypeError("references must be a list of strings, not a single string")
        references = list(references)
        rows = self.segment_statistics([hypothesis], [references])
        return self.score_statistics(rows, self.signature(count_nrefs([references])))

    def _sentence_signature(self, n_refs: int) -> str:
        """:meth:`signature` for ``n_refs`` references, built once per setting (a per-call cost otherwise)."""
        key = (n_refs, self.char_order, self.word_order, self.beta, self.lowercase, self.whitespace,
               self.eps_smoothing)
        cache = self.__dict__.setdefault("_signatures", {})
        signature = cache.get(key)
        if signature is None:
            signature = cache[key] = self.signature(str(n_refs))
        return signature
