"""TREC 2024 RAG nugget scores from nugget assignments (the nuggetizer / pyterrier-nuggetizer scores).

Per topic, each nugget's support is 1 (support), 0.5 (partial_support; 0 in the strict scores) or
0 (not_support and any other assignment label). Then

* all = mean support over every nugget of the topic, whatever its importance label;
* vital = mean support over the vital nuggets (0 when there are none);
* weighted = (sum_vital s + 0.5 sum_okay s) / (|vital| + 0.5 |okay|).

Nuggets whose importance is neither ``vital`` nor ``okay`` (LLM output such as ``failed``) are left
out of vital and weighted but kept in the ``all`` denominator: this is what reproduces the shared
metric files exactly. The ``all`` line is the exact (correctly rounded) mean of each score over
topics, as ``statistics.mean`` gives (from exact sums, so topics can be scored a run at a time).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..metric import ExactSum
from ..signature import make_signature
from .formats import RagTopic

SCORE_KEYS = (
    "strict_vital_score",
    "vital_score",
    "strict_weighted_score",
    "weighted_score",
    "strict_all_score",
    "all_score",
)
OKAY_WEIGHT = 0.5
PARTIAL_SUPPORT = 0.5


def support_value(assignment: str, strict: bool) -> float:
    if assignment == "support":
        return 1.0
    if assignment == "partial_support" and not strict:
        return PARTIAL_SUPPORT
    return 0.0


def _scores(topic: RagTopic, strict: bool) -> tuple[float, float, float]:
    vital, okay, every = [], [], []
    for n in topic.nuggets:
        s = support_value(n.assignment, strict)
        every.append(s)
        if n.importance == "vital":
            vital.append(s)
        elif n.importance == "okay":
            okay.append(s)
    vital_score = sum(vital) / len(vital) if vital else 0.0
    denom = len(vital) + OKAY_WEIGHT * len(okay)
    weighted = (sum(vital) + OKAY_WEIGHT * sum(okay)) / denom if denom else 0.0
    all_score = sum(every) / len(every) if every else 0.0
    return vital_score, weighted, all_score


def topic_scores(topic: RagTopic) -> dict[str, float]:
    sv, sw, sa = _scores(topic, True)
    v, w, a = _scores(topic, False)
    return {
        "strict_vital_score": sv,
        "vital_score": v,
        "strict_weighted_score": sw,
        "weighted_score": w,
        "strict_all_score": sa,
        "all_score": a,
    }


@dataclass
class RagScores:
    per_topic: list[dict]  # {"qid": ..., <SCORE_KEYS>...} in input order
    mean: dict  # {"qid": "all", ...}
    malformed_labels: dict  # {"importance": {label: count}, "assignment": {label: count}}
    signature: str

    def lines(self) -> list[str]:
        # the standard json module's spacing: the official metric files, byte for byte
        return [topic_line(row) for row in self.per_topic + [self.mean]]


def topic_line(row: dict) -> str:
    """A per-topic (or ``all``) line of the official metric files (the json module's spacing)."""
    return json.dumps(row)


class RagTotals:
    """Per-topic scores of runs of topics (:meth:`add`) and, at the end, their mean and the
    malformed-label counts: the mean of the exact sums, equal to ``statistics.mean`` over every
    topic whatever the runs (no topic is kept). ``judge``: the signature of the judge that made
    the assignments (:mod:`qascore.nuggets.judged`), None for the file's own."""

    def __init__(self, *, judge: str | None = None) -> None:
        self.sums = {key: ExactSum() for key in SCORE_KEYS}
        self.n = 0
        self.bad_importance: dict[str, int] = {}
        self.bad_assignment: dict[str, int] = {}
        self.signature = make_signature(
            "rag-nuggets", partial=PARTIAL_SUPPORT, okay_weight=OKAY_WEIGHT, malformed="all-only",
            **({"assigned_by": judge.split("|")[0].removeprefix("qascore:")} if judge else {}))

    def add(self, topics: list[RagTopic]) -> list[dict]:
        """The rows ``{"qid": ..., <SCORE_KEYS>...}`` of ``topics``, counted into the totals."""
        rows: list[dict[str, Any]] = [{"qid": t.qid, **topic_scores(t)} for t in topics]
        for key in SCORE_KEYS:
            self.sums[key] += ExactSum.of([r[key] for r in rows])
        self.n += len(rows)
        for t in topics:
            for n in t.nuggets:
                if n.importance not in ("vital", "okay"):
                    self.bad_importance[n.importance] = self.bad_importance.get(n.importance, 0) + 1
                if n.assignment not in ("support", "partial_support", "not_support"):
                    self.bad_assignment[n.assignment] = self.bad_assignment.get(n.assignment, 0) + 1
        return rows

    def mean(self) -> dict:
        """The ``{"qid": "all", ...}`` row (0.0 for no topic)."""
        return {"qid": "all", **{key: self.sums[key].mean(self.n) for key in SCORE_KEYS}}

    @property
    def malformed_labels(self) -> dict:
        return {"importance": self.bad_importance, "assignment": self.bad_assignment}


def rag_scores(topics: list[RagTopic], *, judge: str | None = None) -> RagScores:
    """Per-topic scores and their mean (the ``qid: all`` line); ``judge``: the signature of the
    judge that made the assignments (:mod:`qascore.nuggets.judged`), None for the file's own.
    For inputs too large to hold, :class:`RagTotals` takes the topics a run at a time.

    Example:

        >>> from qascore.nuggets.formats import RagNugget, RagTopic
        >>> topic = RagTopic("1", "Shakespeare wrote Hamlet around 1600.",
        ...                  (RagNugget("Shakespeare", "vital", "support"),
        ...                   RagNugget("1600", "okay", "partial_support")))
        >>> scores = rag_scores([topic])
        >>> scores.mean["vital_score"], scores.mean["all_score"], scores.mean["strict_all_score"]
        (1.0, 0.75, 0.5)

    :param topics: the ``RagTopic`` objects (e.g. of :func:`~qascore.nuggets.formats.read_rag_assignments`).
    :param judge: the signature of the judge that made the assignments, or None.
    :returns: a ``RagScores`` (per-topic rows, the mean, malformed-label counts, signature).
    """
    totals = RagTotals(judge=judge)
    rows = totals.add(topics)
    return RagScores(rows, totals.mean(), totals.malformed_labels, totals.signature)
