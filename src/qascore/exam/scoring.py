"""EXAM scores: per-question records, EXAM per query and system, and both kinds of n-EXAM.

- EXAM(d_q|S) = correct answers in the article / number of exam questions of q; a system's EXAM is the
  macro mean over every query of the bank with its standard error. A query without an article (skipped)
  counts 0; unanswered questions count as wrong (the paper, section 3.1.2).
- n-EXAM (gold), the DESIRES 2021 paper: sum_q EXAM(d_q|S) / sum_q EXAM(d*_q) with gold articles d*.
  Unbounded above: the paper (section 3.1.3 and its Table 4) expects a system to beat an obtusely
  written gold article, so values above 1 are kept, never clipped. The gold articles' own n-EXAM is
  exactly 1 (set, not divided), and a system whose per-query EXAM equals the gold's gets exactly 1
  too (the same values summed in the same order). Undefined (None) when the gold answers nothing.
- EXAM-Cover n-EXAM, the rubric grading workbench: per query, correct answers / questions that any
  system of this evaluation answered correctly (0 when none did), macro-averaged.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..signature import make_signature
from ..judges.base import Judge
from ..judges.matching import WorkbenchJudge
from ..validate import check_choice
from .model import Articles, ExamQuestion, QuestionBank
from .solvers.base import Solver, SolverAnswer

UNKNOWN_QUERIES = ("error", "ignore")

GOLD_SYSTEM = "<gold>"


@dataclass(frozen=True)
class QuestionRecord:
    """How one system's article for one query fared on one question."""

    system: str
    query_id: str
    question_id: str
    answer: str | None  # the chosen label, or the free-text answer; None when abstained
    confidence: float
    correct: bool
    has_article: bool


@dataclass
class SystemScore:
    system: str
    exam: float
    exam_stderr: float
    per_query: dict[str, float]
    n_exam_gold: float | None = None
    n_exam_cover: float | None = None
    n_exam_cover_stderr: float | None = None
    per_query_cover: dict[str, float] = field(default_factory=dict)  # EXAM-Cover n-EXAM of each query


@dataclass
class ExamResult:
    systems: dict[str, SystemScore]
    records: list[QuestionRecord]
    gold: SystemScore | None
    signature: str
    query_ids: list[str] = field(default_factory=list)

    def leaderboard(self, measure: str = "exam") -> list[SystemScore]:
        """Systems ordered by ``exam``, ``n_exam_gold`` or ``n_exam_cover``, best first (stable by name)."""
        return sorted(self.systems.values(), key=lambda s: (-(getattr(s, measure) or 0.0), s.system))

    def table(self) -> str:
        head = f"{'system':<28} {'EXAM':>7} {'+-se':>6} {'n-EXAM(gold)':>13} {'n-EXAM(cover)':>14}"
        rows = [head]
        for s in self.leaderboard():
            gold = f"{s.n_exam_gold:13.3f}" if s.n_exam_gold is not None else f"{'-':>13}"
            rows.append(f"{s.system:<28} {s.exam:7.3f} {s.exam_stderr:6.3f} {gold} {s.n_exam_cover:14.3f}")
        if self.gold is not None:
            gold = f"{self.gold.n_exam_gold:13.3f}" if self.gold.n_exam_gold is not None else f"{'-':>13}"
            rows.append(f"{'gold articles':<28} {self.gold.exam:7.3f} {self.gold.exam_stderr:6.3f} {gold}")
        return "\n".join(rows)


DEFAULT_GRADER = WorkbenchJudge()  # the rubric grading workbench's free-text verification


def judge_answers(questions: list[ExamQuestion], answers: list[SolverAnswer], judge: Judge | None = None) -> list[bool]:
    """Whether each answer is right: a multiple-choice answer when its label is the key; a free-text
    answer when ``judge`` (default: the workbench's matching) accepts it against the question's gold
    answers, all free-text answers judged in one call. An abstention is wrong."""
    judge = DEFAULT_GRADER if judge is None else judge
    correct = [q.is_multiple_choice and a.label is not None and a.label == q.key for q, a in zip(questions, answers)]
    free = [i for i, (q, a) in enumerate(zip(questions, answers))
            if not q.is_multiple_choice and a.text is not None and q.gold_answers]
    if free:
        verdicts = judge.judge([questions[i].text for i in free], [list(questions[i].gold_answers) for i in free],
                               [answers[i].text for i in free])
        for i, label in zip(free, verdicts.labels):
            correct[i] = bool(label)
    return correct


def grade(bank: QuestionBank, articles: Articles, solver: Solver, *, judge: Judge | None = None,
          unknown_queries: str = "error") -> list[QuestionRecord]:
    """Answer every question of the bank from every system's article for its query, and grade each
    answer (:func:`judge_answers`: free-text answers by ``judge``, the workbench's matching by default).

    ``unknown_queries``: an article for a query the bank does not know is an error (``"error"``) or is
    left out (``"ignore"``). Queries of the bank a system has no article for count as skipped.
    """
    check_choice(unknown_queries, UNKNOWN_QUERIES, "unknown_queries")
    for value, kind, name in ((bank, QuestionBank, "bank"), (articles, Articles, "articles")):
        if not isinstance(value, kind):
            raise TypeError(f"{name} must be a {kind.__name__}, got {type(value).__name__}")
    if len(bank) == 0:
        raise ValueError("the question bank has no questions")
    unknown = sorted(articles.query_ids() - set(bank.query_ids))
    if unknown and unknown_queries == "error":
        shown = ", ".join(unknown[:5]) + (" ..." if len(unknown) > 5 else "")
        raise ValueError(f"articles for {len(unknown)} queries that have no exam questions: {shown} "
                         "(pass unknown_queries='ignore' to leave them out)")
    tasks = []  # (system, query, has_article)
    task_articles, task_questions = [], []
    for system in articles.systems:
        per_query = articles.articles(system)
        for query_id in bank.query_ids:
            has = query_id in per_query
            tasks.append((system, query_id, has))
            task_articles.append(per_query.get(query_id, []))
            task_questions.append(bank.questions(query_id))
    answers = solver.solve(task_articles, task_questions) if tasks else []
    flat = [(task, q, ans) for task, qs, row in zip(tasks, task_questions, answers) for q, ans in zip(qs, row)]
    correct = judge_answers([q for _, q, _ in flat], [ans for _, _, ans in flat], judge)
    return [QuestionRecord(system, query_id, q.question_id, ans.label if q.is_multiple_choice else ans.text,
                           ans.confidence, right, has)
            for ((system, query_id, has), q, ans), right in zip(flat, correct)]


def _per_query(records, system, bank) -> dict[str, float]:
    correct: dict[str, int] = {q: 0 for q in bank.query_ids}
    for r in records:
        if r.system == system and r.correct:
            correct[r.query_id] += 1
    return {q: correct[q] / len(bank.questions(q)) for q in bank.query_ids}


def _mean_se(values) -> tuple[float, float]:
    x = np.asarray(list(values), dtype=np.float64)
    if len(x) == 0:
        return 0.0, 0.0
    se = float(x.std(ddof=1) / np.sqrt(len(x))) if len(x) > 1 else 0.0
    return float(x.mean()), se


def exam_scores(bank: QuestionBank, records: list[QuestionRecord], *, gold_records=None,
                settings: dict | None = None) -> ExamResult:
    """Aggregate records into EXAM, n-EXAM (gold, when gold records are given) and EXAM-Cover n-EXAM."""
    systems = list(dict.fromkeys(r.system for r in records))
    covered: dict[str, set[str]] = {q: set() for q in bank.query_ids}
    for r in records:
        if r.correct:
            covered[r.query_id].add(r.question_id)
    gold = None
    if gold_records is not None:
        per_query = _per_query(gold_records, GOLD_SYSTEM, bank)
        gold = SystemScore(GOLD_SYSTEM, *_mean_se(per_query.values()), per_query)
        total_gold = sum(gold.per_query.values())
        gold.n_exam_gold = 1.0 if total_gold > 0 else None
    out = {}
    for system in systems:
        per_query = _per_query(records, system, bank)
        score = SystemScore(system, *_mean_se(per_query.values()), per_query)
        for q in bank.query_ids:
            n_cov = len(covered[q])
            score.per_query_cover[q] = per_query[q] * len(bank.questions(q)) / n_cov if n_cov else 0.0
        score.n_exam_cover, score.n_exam_cover_stderr = _mean_se(score.per_query_cover.values())
        if gold is not None:
            # Undefined (None, shown as "-") when the gold articles answer nothing; above 1 is kept.
            score.n_exam_gold = sum(per_query.values()) / total_gold if total_gold > 0 else None
        out[system] = score
    signature = make_signature("exam", **(settings or {}), queries=len(bank.query_ids), questions=len(bank),
                               gold="yes" if gold is not None else "no")
    return ExamResult(out, records, gold, signature, list(bank.query_ids))


def evaluate(bank: QuestionBank, articles: Articles, solver: Solver, *, gold: Articles | None = None,
             judge: Judge | None = None, unknown_queries: str = "error") -> ExamResult:
    """Grade all systems (and the gold articles, if given) with one solver and aggregate; free-text
    answers are graded by ``judge`` (the workbench's matching by default)."""
    gold_records = None
    if gold is not None:
        if len(gold.systems) != 1:
            raise ValueError(f"gold articles must come as one system, got {len(gold.systems)}")
        if GOLD_SYSTEM in articles.systems:
            raise ValueError(f"system name {GOLD_SYSTEM!r} is reserved for the gold articles")
        # One batch with the systems, so pooled statistics (idf) are the same for gold and systems.
        both = Articles({s: articles.articles(s) for s in articles.systems})
        both.merge(Articles({GOLD_SYSTEM: gold.articles(gold.systems[0])}))
        records = grade(bank, both, solver, judge=judge, unknown_queries=unknown_queries)
        gold_records = [r for r in records if r.system == GOLD_SYSTEM]
        records = [r for r in records if r.system != GOLD_SYSTEM]
    else:
        records = grade(bank, articles, solver, judge=judge, unknown_queries=unknown_queries)
    grader = DEFAULT_GRADER if judge is None else judge
    return exam_scores(bank, records, gold_records=gold_records, settings={**solver.settings(), "judge": grader.name})
