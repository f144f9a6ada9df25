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
from functools import cache

import numpy as np

from ..errors import MissingExtraError
from ..signature import make_signature
from ..judges.base import Judge
from ..judges.cascade import CalibratedCascade
from ..validate import check_choice
from .records import Articles, ExamQuestion, QuestionBank
from .solvers.base import Solver, SolverAnswer

UNKNOWN_QUERIES = ("error", "ignore")

GOLD_SYSTEM = "<gold>"


@dataclass(frozen=True)
class QuestionRecord:
    """How one system's article for one query fared on one question.

    Example:

        >>> from qascore.exam import Articles, ExamQuestion, LexicalSolver, QuestionBank
        >>> bank = QuestionBank([
        ...     ExamQuestion("q1", "1", "Which planet is known as the red planet?", {"A": "Venus", "B": "Mars"}, "B"),
        ...     ExamQuestion("q1", "2", "What is the largest planet?", {"A": "Jupiter", "B": "Mercury"}, "A")])
        >>> articles = Articles({"sys1": {"q1": ["Mars is called the red planet because of iron oxide."]},
        ...                      "sys2": {"q1": ["Jupiter is the largest planet. Mars is red."]}})
        >>> record = grade(bank, articles, LexicalSolver())[0]
        >>> record.system, record.question_id, record.answer, record.correct
        ('sys1', '1', 'B', True)
    """

    system: str
    query_id: str
    question_id: str
    answer: str | None  # the chosen label, or the free-text answer; None when abstained
    confidence: float
    correct: bool
    has_article: bool


@dataclass
class SystemScore:
    """One system's EXAM (macro mean over the bank's queries) with its standard error and per-query
    scores, and its n-EXAM scores where they were computed.

    Example:

        >>> from qascore.exam import Articles, ExamQuestion, LexicalSolver, QuestionBank
        >>> bank = QuestionBank([
        ...     ExamQuestion("q1", "1", "Which planet is known as the red planet?", {"A": "Venus", "B": "Mars"}, "B"),
        ...     ExamQuestion("q1", "2", "What is the largest planet?", {"A": "Jupiter", "B": "Mercury"}, "A")])
        >>> articles = Articles({"sys1": {"q1": ["Mars is called the red planet because of iron oxide."]},
        ...                      "sys2": {"q1": ["Jupiter is the largest planet. Mars is red."]}})
        >>> score = evaluate(bank, articles, LexicalSolver()).systems["sys2"]
        >>> score.exam, score.per_query, score.n_exam_cover
        (1.0, {'q1': 1.0}, 1.0)
    """

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
    """Every system's :class:`SystemScore`, the graded records, the gold's score and the signature.

    Example:

        >>> from qascore.exam import Articles, ExamQuestion, LexicalSolver, QuestionBank
        >>> bank = QuestionBank([
        ...     ExamQuestion("q1", "1", "Which planet is known as the red planet?", {"A": "Venus", "B": "Mars"}, "B"),
        ...     ExamQuestion("q1", "2", "What is the largest planet?", {"A": "Jupiter", "B": "Mercury"}, "A")])
        >>> articles = Articles({"sys1": {"q1": ["Mars is called the red planet because of iron oxide."]},
        ...                      "sys2": {"q1": ["Jupiter is the largest planet. Mars is red."]}})
        >>> result = evaluate(bank, articles, LexicalSolver())
        >>> [s.system for s in result.leaderboard()], len(result.records)
        (['sys2', 'sys1'], 4)
    """

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


@cache
def default_judge(n_threads: int | None = None, cache_dir: str | None = None) -> Judge:
    """The judge of free-text answers when none is given: the shipped AVA judge (the judge spec
    ``default``: calibrated triage, then the network), loaded on first use, so a multiple-choice
    bank never needs it; ``cache_dir`` keeps its verdicts on disk for later runs."""
    from ..judges.load import load_judge

    try:
        return load_judge("default", n_threads=n_threads, cache=cache_dir)
    except MissingExtraError as error:
        raise MissingExtraError(f"free-text answers are graded by the shipped AVA model unless another judge is "
                                f"given (judge=..., --judge workbench needs nothing): {error}") from None


def judge_name(judge: Judge | None) -> str:
    """The name a judge goes into signatures by; None is the default judge (not loaded for this)."""
    return CalibratedCascade.name if judge is None else judge.name


JUDGE_BATCH = 512  # answers judged between two progress steps


def judge_answers(questions: list[ExamQuestion], answers: list[SolverAnswer],
                  judge: Judge | None = None, progress=None) -> tuple[list[bool], list[SolverAnswer]]:
    """Whether each answer is right, and the answers as graded: a multiple-choice answer is right
    when its label is the key; a free-text answer when ``judge`` (default: :func:`default_judge`,
    the shipped AVA model) accepts its text against the question's gold answers, or, when the
    solver offered alternatives, any of them (the first accepted becomes the answer). An
    abstention is wrong.

    The judge answers "is any of these right?" for each answer's texts (:meth:`Judge.first_accepted`):
    a judge reads each distinct (question, gold answers, text) at most once per batch, however many
    systems gave it, and the shipped judge reads few: its triage settles most paragraphs, and its
    network reads a short list per question. A judge's answer for one question does not depend on
    the others in its call. ``progress`` (an object with ``advance(n)``, such as the command
    line's bar) hears of every batch of answers judged.
    """
    correct = [q.is_multiple_choice and a.label is not None and a.label == q.key for q, a in zip(questions, answers)]
    graded = list(answers)
    free = [i for i, (q, a) in enumerate(zip(questions, answers))
            if not q.is_multiple_choice and a.text is not None and q.gold_answers]
    if not free:
        return correct, graded
    grader = default_judge() if judge is None else judge
    texts = {i: [t for t in (answers[i].text, *answers[i].alternatives) if t is not None] for i in free}
    step = JUDGE_BATCH if progress is not None else len(free)
    for start in range(0, len(free), step):
        part = free[start:start + step]
        first = grader.first_accepted([questions[i].text for i in part],
                                      [list(questions[i].gold_answers) for i in part], [texts[i] for i in part])
        for i, j in zip(part, first.tolist()):
            correct[i] = j >= 0
            if answers[i].alternatives:
                a = answers[i]
                graded[i] = SolverAnswer(a.label, a.confidence, a.text if j < 0 else texts[i][j])
        if progress is not None:
            progress.advance(len(part))
    return correct, graded


def check_queries(bank: QuestionBank, query_ids: set[str], unknown_queries: str) -> None:
    """Articles for queries the bank does not know are an error unless ``unknown_queries="ignore"``."""
    unknown = sorted(query_ids - set(bank.query_ids))
    if unknown and unknown_queries == "error":
        shown = ", ".join(unknown[:5]) + (" ..." if len(unknown) > 5 else "")
        raise ValueError(f"articles for {len(unknown)} queries that have no exam questions: {shown} "
                         "(pass unknown_queries='ignore' to leave them out)")


def bank_articles(bank: QuestionBank, articles: Articles) -> list[list[str]]:
    """The articles that grading reads: each system's, for the queries of the bank."""
    out: list[list[str]] = []
    for system in articles.systems:
        per_query = articles.articles(system)
        out.extend(per_query[q] for q in bank.query_ids if q in per_query)
    return out


def grade(bank: QuestionBank, articles: Articles, solver: Solver, *, judge: Judge | None = None,
          unknown_queries: str = "error", progress=None) -> list[QuestionRecord]:
    """Answer every question of the bank from every system's article for its query, and grade each
    answer (:func:`judge_answers`: free-text answers by ``judge``, the shipped AVA model by default).

    ``unknown_queries``: an article for a query the bank does not know is an error (``"error"``) or is
    left out (``"ignore"``). Queries of the bank a system has no article for count as skipped.

    Example:

        >>> from qascore.exam import Articles, ExamQuestion, LexicalSolver, QuestionBank
        >>> bank = QuestionBank([
        ...     ExamQuestion("q1", "1", "Which planet is known as the red planet?", {"A": "Venus", "B": "Mars"}, "B"),
        ...     ExamQuestion("q1", "2", "What is the largest planet?", {"A": "Jupiter", "B": "Mercury"}, "A")])
        >>> articles = Articles({"sys1": {"q1": ["Mars is called the red planet because of iron oxide."]},
        ...                      "sys2": {"q1": ["Jupiter is the largest planet. Mars is red."]}})
        >>> [(r.system, r.question_id, r.correct) for r in grade(bank, articles, LexicalSolver())]
        [('sys1', '1', True), ('sys1', '2', False), ('sys2', '1', True), ('sys2', '2', True)]

    :param bank: the :class:`~qascore.exam.records.QuestionBank`.
    :param articles: the systems' :class:`~qascore.exam.records.Articles`.
    :param solver: the :class:`~qascore.exam.solvers.base.Solver` that answers.
    :param judge: the judge of free-text answers (None: the shipped AVA judge, loaded when needed).
    :param unknown_queries: ``error`` or ``ignore``.
    :param progress: an optional callable told of each batch done.
    :returns: one :class:`QuestionRecord` per (system, question).
    :raises TypeError: for a bank or articles of the wrong type.
    :raises ValueError: for articles of unknown queries under ``unknown_queries="error"``.
    """
    check_choice(unknown_queries, UNKNOWN_QUERIES, "unknown_queries")
    for value, kind, name in ((bank, QuestionBank, "bank"), (articles, Articles, "articles")):
        if not isinstance(value, kind):
            raise TypeError(f"{name} must be a {kind.__name__}, got {type(value).__name__}")
    if len(bank) == 0:
        raise ValueError("the question bank has no questions")
    check_queries(bank, articles.query_ids(), unknown_queries)
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
    correct, graded = judge_answers([q for _, q, _ in flat], [ans for _, _, ans in flat], judge, progress)
    return [QuestionRecord(system, query_id, q.question_id, ans.label if q.is_multiple_choice else ans.text,
                           ans.confidence, right, has)
            for ((system, query_id, has), q, _), ans, right in zip(flat, graded, correct)]


def _mean_se(values) -> tuple[float, float]:
    x = np.asarray(list(values), dtype=np.float64)
    if len(x) == 0:
        return 0.0, 0.0
    se = float(x.std(ddof=1) / np.sqrt(len(x))) if len(x) > 1 else 0.0
    return float(x.mean()), se


class ExamTotals:
    """What :func:`exam_scores` needs, added batch by batch (systems in any grouping, in their
    order): each system's correct answers per query, the gold's, and per query the questions any
    system answered right. ``result`` gives the figures :func:`exam_scores` gives on every record
    at once, bit for bit."""

    def __init__(self, bank: QuestionBank) -> None:
        self.bank = bank
        self.correct: dict[str, dict[str, int]] = {}  # system -> query -> correct answers
        self.gold: dict[str, int] | None = None
        self.covered: dict[str, set[str]] = {q: set() for q in bank.query_ids}

    def add(self, records, *, gold: bool = False) -> ExamTotals:
        """Tally ``records`` (of systems, or with ``gold`` of the gold articles: not in coverage)."""
        if gold and self.gold is None:
            self.gold = dict.fromkeys(self.bank.query_ids, 0)
        gold_tally = self.gold
        for r in records:
            tally = gold_tally if gold else self.correct.get(r.system)
            if tally is None:
                tally = self.correct[r.system] = dict.fromkeys(self.bank.query_ids, 0)
            if r.correct:
                tally[r.query_id] += 1
                if not gold:
                    self.covered[r.query_id].add(r.question_id)
        return self

    def _per_query(self, correct: dict[str, int]) -> dict[str, float]:
        return {q: correct[q] / len(self.bank.questions(q)) for q in self.bank.query_ids}

    def result(self, settings: dict | None = None, records: list[QuestionRecord] | None = None) -> ExamResult:
        """EXAM, n-EXAM (gold, when gold records were added) and EXAM-Cover n-EXAM of every system."""
        bank = self.bank
        gold = None
        if self.gold is not None:
            per_query = self._per_query(self.gold)
            gold = SystemScore(GOLD_SYSTEM, *_mean_se(per_query.values()), per_query)
            total_gold = sum(gold.per_query.values())
            gold.n_exam_gold = 1.0 if total_gold > 0 else None
        out = {}
        for system, correct in self.correct.items():
            per_query = self._per_query(correct)
            score = SystemScore(system, *_mean_se(per_query.values()), per_query)
            for q in bank.query_ids:
                n_cov = len(self.covered[q])
                score.per_query_cover[q] = per_query[q] * len(bank.questions(q)) / n_cov if n_cov else 0.0
            score.n_exam_cover, score.n_exam_cover_stderr = _mean_se(score.per_query_cover.values())
            if gold is not None:
                # Undefined (None, shown as "-") when the gold articles answer nothing; above 1 is kept.
                score.n_exam_gold = sum(per_query.values()) / total_gold if total_gold > 0 else None
            out[system] = score
        signature = make_signature("exam", **(settings or {}), queries=len(bank.query_ids), questions=len(bank),
                                   gold="yes" if gold is not None else "no")
        return ExamResult(out, [] if records is None else records, gold, signature, list(bank.query_ids))


def exam_scores(bank: QuestionBank, records: list[QuestionRecord], *, gold_records=None,
                settings: dict | None = None) -> ExamResult:
    """Aggregate records into EXAM, n-EXAM (gold, when gold records are given) and EXAM-Cover n-EXAM.

    Example:

        >>> from qascore.exam import Articles, ExamQuestion, LexicalSolver, QuestionBank
        >>> bank = QuestionBank([
        ...     ExamQuestion("q1", "1", "Which planet is known as the red planet?", {"A": "Venus", "B": "Mars"}, "B"),
        ...     ExamQuestion("q1", "2", "What is the largest planet?", {"A": "Jupiter", "B": "Mercury"}, "A")])
        >>> articles = Articles({"sys1": {"q1": ["Mars is called the red planet because of iron oxide."]},
        ...                      "sys2": {"q1": ["Jupiter is the largest planet. Mars is red."]}})
        >>> result = exam_scores(bank, grade(bank, articles, LexicalSolver()))
        >>> {system: score.exam for system, score in result.systems.items()}
        {'sys1': 0.5, 'sys2': 1.0}

    :param bank: the :class:`~qascore.exam.records.QuestionBank` the records answer.
    :param records: the systems' :class:`QuestionRecord` objects (from :func:`grade`).
    :param gold_records: the gold articles' records, for n-EXAM (gold).
    :param settings: the settings the signature records.
    :returns: an :class:`ExamResult`.
    """
    totals = ExamTotals(bank).add(records)
    if gold_records is not None:
        totals.add(gold_records, gold=True)
    return totals.result(settings, records)


def check_gold(articles_systems, gold: Articles) -> None:
    """Gold articles come as one system, whose reserved name no system may take."""
    if len(gold.systems) != 1:
        raise ValueError(f"gold articles must come as one system, got {len(gold.systems)}")
    if GOLD_SYSTEM in articles_systems:
        raise ValueError(f"system name {GOLD_SYSTEM!r} is reserved for the gold articles")


def evaluate(bank: QuestionBank, articles: Articles, solver: Solver, *, gold: Articles | None = None,
             judge: Judge | None = None, unknown_queries: str = "error", progress=None) -> ExamResult:
    """Grade all systems (and the gold articles, if given) with one solver and aggregate; free-text
    answers are graded by ``judge`` (the shipped AVA model by default).

    Example:

        >>> from qascore.exam import Articles, ExamQuestion, LexicalSolver, QuestionBank
        >>> bank = QuestionBank([
        ...     ExamQuestion("q1", "1", "Which planet is known as the red planet?", {"A": "Venus", "B": "Mars"}, "B"),
        ...     ExamQuestion("q1", "2", "What is the largest planet?", {"A": "Jupiter", "B": "Mercury"}, "A")])
        >>> articles = Articles({"sys1": {"q1": ["Mars is called the red planet because of iron oxide."]},
        ...                      "sys2": {"q1": ["Jupiter is the largest planet. Mars is red."]}})
        >>> result = evaluate(bank, articles, LexicalSolver())
        >>> {system: score.exam for system, score in result.systems.items()}
        {'sys1': 0.5, 'sys2': 1.0}

    :param bank: the :class:`~qascore.exam.records.QuestionBank`.
    :param articles: the systems' :class:`~qascore.exam.records.Articles`.
    :param solver: the :class:`~qascore.exam.solvers.base.Solver` that answers.
    :param gold: gold articles (one system), for n-EXAM (gold).
    :param judge: the judge of free-text answers (None: the shipped AVA judge, loaded when needed).
    :param unknown_queries: ``error`` or ``ignore``.
    :param progress: an optional callable told of each batch done.
    :returns: an :class:`ExamResult`.
    :raises ValueError: for articles of unknown queries under ``unknown_queries="error"``, or gold
        articles of more than one system.
    """
    gold_records = None
    if gold is not None:
        check_gold(articles.systems, gold)
        # One batch with the systems, so pooled statistics (idf) are the same for gold and systems.
        both = Articles({s: articles.articles(s) for s in articles.systems})
        both.merge(Articles({GOLD_SYSTEM: gold.articles(gold.systems[0])}))
        records = grade(bank, both, solver, judge=judge, unknown_queries=unknown_queries, progress=progress)
        gold_records = [r for r in records if r.system == GOLD_SYSTEM]
        records = [r for r in records if r.system != GOLD_SYSTEM]
    else:
        records = grade(bank, articles, solver, judge=judge, unknown_queries=unknown_queries, progress=progress)
    return exam_scores(bank, records, gold_records=gold_records, settings=exam_settings(solver, judge))


def exam_settings(solver: Solver, judge: Judge | None) -> dict:
    """The signature's settings: the solver's and the free-text grader's name."""
    return {**solver.settings(), "judge": judge_name(judge)}
