"""A cascade of judges: a cheap first judge settles the triples it accepts, the next judge the rest."""
from __future__ import annotations

import numpy as np

from .base import Judge, Verdicts


class CascadeJudge(Judge):
    """``first`` judges every triple; the triples it labels correct keep its verdict, and only the
    others go to ``then`` (which may itself be a cascade). With :class:`ContainmentJudge` first, an
    answer that contains a reference is accepted without running a model: on EVOUNA-NQ dev, humans
    agree with 99.3% of those acceptances (docs/judges.md).

    ``threshold`` and ``refs`` are ``then``'s; an accepted triple's probability is ``first``'s."""

    name = "cascade"

    def __init__(self, first: Judge, then: Judge) -> None:
        self.first = first
        self.then = then

    @property
    def threshold(self) -> float:
        return self.then.threshold

    @property
    def refs(self) -> str | None:
        return getattr(self.then, "refs", None)

    def with_refs(self, refs: str, threshold: float | None = None) -> CascadeJudge:
        first = self.first.with_refs(refs) if hasattr(self.first, "with_refs") else self.first
        then = self.then.with_refs(refs, threshold) if hasattr(self.then, "with_refs") else self.then
        return CascadeJudge(first, then)

    def settings(self) -> dict:
        """Both stages' settings, each under its stage's name (``first.refs``, ``then.threshold``, ...)."""
        return dict(first=self.first.name, **{f"first.{k}": v for k, v in self.first.settings().items()},
                    then=self.then.name, **{f"then.{k}": v for k, v in self.then.settings().items()})


    def judge(self, questions, references, candidates) -> Verdicts:
        first = self.first.judge(questions, references, candidates)
        rest = np.flatnonzero(~first.labels)
        proba, labels = first.proba.copy(), first.labels.copy()
        if len(rest):
            later = self.then.judge([questions[i] for i in rest], [references[i] for i in rest],
                                    [candidates[i] for i in rest])
            proba[rest], labels[rest] = later.proba, later.labels
        return Verdicts(proba, labels)

    def predict_proba(self, questions, references, candidates) -> np.ndarray:
        return self.judge(questions, references, candidates).proba
