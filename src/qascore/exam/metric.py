"""EXAM as a :class:`~qascore.metric.Metric`: :func:`~qascore.exam.scoring.evaluate` per batch of queries.

A batch is ``(questions, articles)`` or ``(questions, articles, gold)``: a :class:`QuestionBank`, the
systems' :class:`Articles` for (some of) its queries, and optionally the gold articles (one system).
Every system of a batch is graded against every query of the batch's bank, exactly as
:func:`evaluate` does; statistics are per-system sums over the batch's queries, so streaming over
batches of queries (``update`` per batch, then ``compute``) gives the same figures as one batch of
them all, provided the solver's answers do not depend on the rest of the batch. The default
lexical solver pools idf over the batch's paragraphs: stream it with a fixed idf
(``LexicalSolver(idf_corpus=...)``) or score the whole bank in one batch.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..judges.base import Judge
from ..metric import CorpusScore, ExampleScores, Metric, Statistics
from ..signature import make_signature
from ..validate import check_choice
from .records import Articles, QuestionBank
from .scoring import GOLD_SYSTEM, UNKNOWN_QUERIES, ExamResult, evaluate, judge_name
from .solvers.base import Solver

_QUESTIONS, _GOLD = "questions", "gold"


class Exam(Metric):
    """EXAM, n-EXAM (gold) and EXAM-Cover n-EXAM of every system, through :func:`evaluate`.

    ``score(questions, articles[, gold])`` gives one row per (system, query): its per-query ``exam``
    and ``n_exam_cover``, ids ``(system, query_id)``. ``corpus_score`` gives, per system,
    ``exam:<system>`` (the macro mean over the bank's queries, as ``SystemScore.exam``),
    ``n_exam_cover:<system>`` and, with gold articles, ``n_exam_gold:<system>`` (NaN, written as
    ``null`` in JSON, when the gold answers nothing; unbounded above) and ``exam:<gold>``. A system
    missing from a batch counts 0 on that batch's queries (skipped), as :func:`evaluate` counts a
    missing article. With one batch every figure equals :func:`evaluate`'s to the last bit.

    Example:

        >>> from qascore.exam import Articles, ExamQuestion, LexicalSolver, QuestionBank
        >>> bank = QuestionBank([
        ...     ExamQuestion("q1", "1", "Which planet is known as the red planet?", {"A": "Venus", "B": "Mars"}, "B"),
        ...     ExamQuestion("q1", "2", "What is the largest planet?", {"A": "Jupiter", "B": "Mercury"}, "A")])
        >>> articles = Articles({"sys1": {"q1": ["Mars is called the red planet because of iron oxide."]},
        ...                      "sys2": {"q1": ["Jupiter is the largest planet. Mars is red."]}})
        >>> exam = Exam(LexicalSolver())
        >>> score = exam.corpus_score(bank, articles)
        >>> score["exam:sys1"], score["exam:sys2"]
        (0.5, 1.0)
    """

    name = "exam"

    def __init__(self, solver: Solver | None = None, *, judge: Judge | None = None,
                 unknown_queries: str = "error") -> None:
        if solver is None:
            from .solvers.lexical import LexicalSolver

            solver = LexicalSolver()
        self.solver = solver
        self.judge = judge  # None: the shipped AVA model, loaded when a free-text answer needs it
        self.unknown_queries = check_choice(unknown_queries, UNKNOWN_QUERIES, "unknown_queries")

    def settings(self) -> dict[str, Any]:
        return {**self.solver.settings(), "judge": judge_name(self.judge)}

    def result(self, questions: QuestionBank, articles: Articles, gold: Articles | None = None) -> ExamResult:
        """:func:`evaluate` of one batch with this metric's solver."""
        return evaluate(questions, articles, self.solver, gold=gold, judge=self.judge,
                        unknown_queries=self.unknown_queries)

    def score(self, questions: QuestionBank, articles: Articles, gold: Articles | None = None) -> ExampleScores:
        result = self.result(questions, articles, gold)
        ids = [(s, q) for s in result.systems for q in result.query_ids]
        exam = np.array([result.systems[s].per_query[q] for s, q in ids], dtype=np.float64)
        cover = np.array([result.systems[s].per_query_cover[q] for s, q in ids], dtype=np.float64)
        return ExampleScores(self.name, {"exam": exam, "n_exam_cover": cover}, result.signature, ids)

    def statistics(self, questions: QuestionBank, articles: Articles, gold: Articles | None = None) -> Statistics:
        result = self.result(questions, articles, gold)
        sums: dict[str, Any] = {_QUESTIONS: len(questions)}
        for system, s in result.systems.items():
            per_query = np.fromiter(s.per_query.values(), dtype=np.float64, count=len(s.per_query))
            sums[f"exam:{system}"] = float(np.sum(per_query))  # np.mean's own sum: EXAM to the last bit
            # n-EXAM is a ratio of Python sums in exam_scores; the same sum keeps it to the last bit.
            sums[f"exam_total:{system}"] = sum(s.per_query.values())
            sums[f"cover:{system}"] = float(np.sum(np.fromiter(s.per_query_cover.values(), dtype=np.float64)))
        if result.gold is not None:
            sums[f"exam:{GOLD_SYSTEM}"] = float(np.sum(np.fromiter(result.gold.per_query.values(), dtype=np.float64)))
            sums[_GOLD] = sum(result.gold.per_query.values())
        return Statistics(sums, len(result.query_ids))

    def update(self, questions: QuestionBank, articles: Articles, gold: Articles | None = None) -> None:
        stats = self.statistics(questions, articles, gold)
        if self._state is not None:
            if (_GOLD in stats.sums) != (_GOLD in self._state.sums):
                raise ValueError("every batch must come with gold articles, or none")
            # A system absent from one batch skipped all its queries: its sums there are 0.
            keys = list(dict.fromkeys([*self._state.sums, *stats.sums]))
            stats = _with_keys(self._state, keys) + _with_keys(stats, keys)
        self._state = stats

    def aggregate(self, statistics: Statistics) -> CorpusScore:
        sums, n = statistics.sums, statistics.n
        systems = [k.split(":", 1)[1] for k in sums if k.startswith("exam_total:")]
        gold_total = sums.get(_GOLD)
        values: dict[str, float] = {}
        for system in systems:
            values[f"exam:{system}"] = sums[f"exam:{system}"] / n if n else 0.0
            values[f"n_exam_cover:{system}"] = sums[f"cover:{system}"] / n if n else 0.0
            if gold_total is not None:
                values[f"n_exam_gold:{system}"] = (sums[f"exam_total:{system}"] / gold_total if gold_total > 0
                                                   else float("nan"))
        if gold_total is not None:
            values[f"exam:{GOLD_SYSTEM}"] = sums[f"exam:{GOLD_SYSTEM}"] / n if n else 0.0
        signature = make_signature(self.name, **self.settings(), queries=n, questions=int(sums[_QUESTIONS]),
                                   gold="yes" if gold_total is not None else "no")
        return CorpusScore(self.name, values, n, signature)


def _with_keys(stats: Statistics, keys: list[str]) -> Statistics:
    return Statistics({k: stats.sums.get(k, 0.0) for k in keys}, stats.n)
