"""The judge interface: is each candidate answer correct, given its question and acceptable references?

A judge scores triples ``(question, references, candidate)``: ``references[i]`` is a string or a
non-empty list of strings. ``predict_proba`` gives p(correct) per triple (float64), ``predict``
the 0/1 label at the judge's ``threshold``, ``judge`` both at once. Every judge scores each triple
independently of the others in its call, so any split of a corpus gives the same verdicts.
"""
from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..signature import make_signature


class Verdicts(NamedTuple):
    """A judge's output: ``proba`` p(correct) per triple (float64), ``labels`` (bool)."""

    proba: np.ndarray
    labels: np.ndarray


class Judge:
    """Base of every judge: subclasses define ``predict_proba``, ``threshold``, ``settings()`` and ``name``."""

    name = "judge"
    threshold: Any  # float: p(correct) at or above it is judged correct

    def predict_proba(self, questions, references, candidates) -> np.ndarray:
        raise NotImplementedError

    def settings(self) -> dict:
        """Every setting that changes a probability or a label, as the signature lists them."""
        return {}

    @property
    def signature(self) -> str:
        return make_signature(self.name, **self.settings())

    def judge(self, questions, references, candidates) -> Verdicts:
        """Probabilities and labels (probability >= ``threshold``) of every triple, in one call."""
        proba = np.asarray(self.predict_proba(questions, references, candidates), dtype=np.float64)
        return Verdicts(proba, proba >= float(self.threshold))

    def predict(self, questions, references, candidates) -> np.ndarray:
        """1 for each triple judged correct, else 0 (int64)."""
        return self.judge(questions, references, candidates).labels.astype(np.int64)
