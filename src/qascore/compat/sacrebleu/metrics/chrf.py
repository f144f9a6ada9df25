"""sacrebleu's ``CHRF`` (chrF and chrF++, 2.6) on :class:`qascore.lexical.CHRF`'s compiled statistics."""
from __future__ import annotations

import numpy as np

from ....lexical.chrf import CHRF as NativeCHRF
from .base import Metric, Score, Signature


class CHRFSignature(Signature):
    pass


class CHRFScore(Score):
    """sacrebleu's chrF result: ``score``, ``char_order``, ``word_order``, ``beta``; named
    ``chrF{beta}`` with one ``+`` per word order."""

    def __init__(self, score: float, char_order: int, word_order: int, beta: int):
        self.beta = beta
        self.char_order = char_order
        self.word_order = word_order
        super().__init__(f"chrF{beta}" + "+" * word_order, score)


class CHRF(Metric):
    """``sacrebleu.metrics.CHRF(char_order, word_order, beta, lowercase, whitespace, eps_smoothing,
    references)``."""

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

    def _segment_rows(self, hypotheses, references) -> np.ndarray:
        return self._native.segment_statistics(hypotheses, references)

    def _compute_f_score(self, statistics) -> float:
        return self._native.f_score(statistics)

    def _compute_score_from_stats(self, stats) -> CHRFScore:
        return CHRFScore(self._native.f_score(stats), self.char_order, self.word_order, self.beta)

    def _signature_info(self) -> tuple[dict, dict]:
        info = {"case": "lc" if self.lowercase else "mixed", "eff": "yes" if not self.eps_smoothing else "no",
                "nc": self.char_order, "nw": self.word_order, "space": "yes" if self.whitespace else "no"}
        return info, {"case": "c", "eff": "e", "nc": "nc", "nw": "nw", "space": "s"}
