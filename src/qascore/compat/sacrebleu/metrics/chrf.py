"""sacrebleu's ``CHRF`` (chrF and chrF++, 2.6) on :class:`qascore.lexical.chrf.CHRF`'s compiled statistics."""
from __future__ import annotations

import numpy as np

from ....lexical.chrf import CHRF as NativeCHRF
from ....prf import f_score
from .base import Metric, Score, Signature


class CHRFSignature(Signature):
    pass


class CHRFScore(Score):
    """sacrebleu's chrF result: ``score``, ``char_order``, ``word_order``, ``beta``; named
    ``chrF{beta}`` with one ``+`` per word order.

    Example:

        >>> from qascore.compat.sacrebleu import CHRFScore
        >>> print(CHRFScore(55.5, char_order=6, word_order=2, beta=2))
        chrF2++ = 55.50

    :param score: chrF (0-100).
    :param char_order: the longest character n-gram.
    :param word_order: the longest word n-gram.
    :param beta: the F's beta.
    """

    def __init__(self, score: float, char_order: int, word_order: int, beta: int):
        self.beta = beta
        self.char_order = char_order
        self.word_order = word_order
        super().__init__(f"chrF{beta}" + "+" * word_order, score)


class CHRF(Metric):
    """``sacrebleu.metrics.CHRF(char_order, word_order, beta, lowercase, whitespace, eps_smoothing,
    references)``.

    Example:

        >>> from qascore.compat.sacrebleu import CHRF
        >>> hypotheses = ["the cat sat on the mat", "a dog barked"]
        >>> references = [["the cat sat on a mat", "the dog barked loudly"]]
        >>> chrf = CHRF(word_order=2)  # chrF++
        >>> print(chrf.corpus_score(hypotheses, references))
        chrF2++ = 59.26
        >>> chrf.get_signature().format()
        'nrefs:1|case:mixed|eff:yes|nc:6|nw:2|space:no|version:2.6.0'

    :param char_order: the longest character n-gram.
    :param word_order: the longest word n-gram (0: chrF, 2: chrF++).
    :param beta: recall weighs ``beta`` times as much as precision.
    :param lowercase: lowercase before scoring.
    :param whitespace: keep whitespace in character n-grams.
    :param eps_smoothing: smooth zero statistics with an epsilon (chrF++.py's rule).
    :param references: reference streams to cache for later calls.
    :raises ValueError: for a negative order, or no n-gram order at all.
    """

    CHAR_ORDER = 6
    WORD_ORDER = 0
    BETA = 2
    _SIGNATURE_TYPE = CHRFSignature

    def __init__(self, char_order: int = CHAR_ORDER, word_order: int = WORD_ORDER, beta: int = BETA,
                 lowercase: bool = False, whitespace: bool = False, eps_smoothing: bool = False, references=None):
        self._native = NativeCHRF(char_order, word_order, beta, lowercase, whitespace, eps_smoothing)
        self.beta = beta
        self.char_order = char_order
        self.word_order = word_order
        self.order = char_order + word_order
        self.lowercase = lowercase
        self.whitespace = whitespace
        self.eps_smoothing = eps_smoothing
        super().__init__(references)

    def _segment_rows(self, segments) -> np.ndarray:
        return self._native.segment_statistics_of(segments)

    def _compute_f_score(self, statistics) -> float:
        """chrF of one row of statistics: integer counts in the kernel; the float32 sums of
        sacrebleu's bootstrap in :meth:`_f_score_of_floats`."""
        statistics = np.asarray(statistics)
        if np.issubdtype(statistics.dtype, np.integer):
            return self._native.f_score(statistics)
        return self._f_score_of_floats(statistics)

    def _f_score_of_floats(self, statistics):
        """The F-score computed on the row's own numpy scalars, so float32 bootstrap sums round
        at each step as they do in sacrebleu (numpy keeps float32 against Python numbers)."""
        eps, factor = 1e-16, self.beta ** 2
        score, order = 0.0, 0
        mean_precision = mean_recall = 0.0
        for n in range(self.order):
            n_hyp, n_ref, n_match = statistics[3 * n:3 * n + 3]
            precision = n_match / n_hyp if n_hyp > 0 else eps
            recall = n_match / n_ref if n_ref > 0 else eps
            score += f_score(precision, recall, factor, otherwise=eps)
            if n_hyp > 0 and n_ref > 0:
                mean_precision += precision
                mean_recall += recall
                order += 1
        if self.eps_smoothing:
            return 100 * score / self.order
        if order:
            mean_precision /= order
            mean_recall /= order
        else:
            mean_precision = mean_recall = 0.0
        if not mean_precision + mean_recall:
            return 0.0
        score = (1 + factor) * mean_precision * mean_recall
        score /= (factor * mean_precision) + mean_recall
        return 100 * score

    def _sentence_score_of_lines(self, lines: list) -> CHRFScore:
        return CHRFScore(self._native.sentence_f_score(lines), self.char_order, self.word_order, self.beta)

    def _compute_score_from_stats(self, stats) -> CHRFScore:
        return CHRFScore(self._compute_f_score(stats), self.char_order, self.word_order, self.beta)

    def _scores_from_stats(self, rows) -> np.ndarray:
        rows = np.asarray(rows)
        if np.issubdtype(rows.dtype, np.integer):
            return self._native.f_scores(rows)
        return super()._scores_from_stats(rows)

    def _signature_info(self) -> tuple[dict, dict]:
        info = {"case": "lc" if self.lowercase else "mixed", "eff": "yes" if not self.eps_smoothing else "no",
                "nc": self.char_order, "nw": self.word_order, "space": "yes" if self.whitespace else "no"}
        return info, {"case": "c", "eff": "e", "nc": "nc", "nw": "nw", "space": "s"}
