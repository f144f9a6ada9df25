"""EXAM, n-EXAM (gold and EXAM-Cover), per-question records, bad input, and the workbench writer."""
import gzip
import json
import math

import pytest

from qascore.exam.model import Articles, ExamQuestion, QuestionBank
from qascore.exam.scoring import GOLD_SYSTEM, evaluate, exam_scores, grade
from qascore.exam.solvers.base import Solver, SolverAnswer
from qascore.exam.workbench import cover_records, grade_paragraphs, write_workbench_graded


class ScriptedSolver(Solver):
    """Answers 'a' to a question iff its id appears (as a word) in the article; never looks at keys."""

    name = "scripted"

    def solve(self, articles, questions):
        return [[SolverAnswer("a" if q.question_id in " ".join(art).split() else None, 1.0) for q in qs]
                for art, qs in zip(articles, questions)]


def mc(query, qid, key="a"):
    return ExamQuestion(query, qid, f"question {qid}", {"a": "x", "b": "y"}, key)


BANK = QuestionBank([mc("q1", "1"), mc("q1", "2"), mc("q1", "3", key="b"), mc("q2", "4"), mc("q3", "5")])


def test_exam_per_query_macro_mean_and_records():
    arts = Articles({
        "A": {"q1": ["1 2 3"], "q2": ["4"]},  # q1: 2 of 3 right (3's key is b); q2: 1/1; q3 skipped -> 0
        "B": {"q1": ["1"], "q2": [], "q3": ["nothing"]},
    })
    result = evaluate(BANK, arts, ScriptedSolver())
    a, b = result.systems["A"], result.systems["B"]
    assert a.per_query == {"q1": 2 / 3, "q2": 1.0, "q3": 0.0}
    assert a.exam == pytest.approx((2 / 3 + 1 + 0) / 3)
    values = [2 / 3, 1.0, 0.0]
    mean = sum(values) / 3
    se = math.sqrt(sum((v - mean) ** 2 for v in values) / 2) / math.sqrt(3)
    assert a.exam_stderr == pytest.approx(se)
    assert b.per_query == {"q1": 1 / 3, "q2": 0.0, "q3": 0.0}
    # cover: q1 questions any system got right = {1, 2}; q2 = {4}; q3 = {} -> 0
    assert a.n_exam_cover == pytest.approx((2 / 2 + 1 / 1 + 0) / 3)
    assert b.n_exam_cover == pytest.approx((1 / 2 + 0 + 0) / 3)
    assert a.n_exam_gold is None and result.gold is None
    recs = [r for r in result.records if r.system == "A" and r.query_id == "q1"]
    assert [(r.question_id, r.answer, r.correct) for r in recs] == [("1", "a", True), ("2", "a", True), ("3", "a", False)]
    assert all(not r.has_article for r in result.records if r.system == "A" and r.query_id == "q3")
    assert [s.system for s in result.leaderboard()] == ["A", "B"]
    assert result.signature.startswith("qascore:exam|judge:workbench|queries:3|questions:5|gold:no|version:")


def test_n_exam_gold_is_ratio_of_sums():
    arts = Articles({"A": {"q1": ["1"], "q2": ["4"]}})
    gold = Articles({"gold": {"q1": ["1 2"], "q2": [], "q3": ["5"]}})
    result = evaluate(BANK, arts, ScriptedSolver(), gold=gold)
    assert result.gold.per_query == {"q1": 2 / 3, "q2": 0.0, "q3": 1.0}
    assert result.systems["A"].n_exam_gold == pytest.approx((1 / 3 + 1) / (2 / 3 + 1))
    assert GOLD_SYSTEM not in result.systems
    # gold never counts toward EXAM-Cover's pool of answered questions
    assert result.systems["A"].n_exam_cover == pytest.approx((1 + 1 + 0) / 3)
    none = evaluate(BANK, arts, ScriptedSolver(), gold=Articles({"g": {"q1": []}}))
    assert none.systems["A"].n_exam_gold is None


def test_unknown_queries_error_or_ignore():
    arts = Articles({"A": {"q1": ["1"], "zzz": ["1"]}})
    with pytest.raises(ValueError, match="articles for 1 queries that have no exam questions: zzz"):
        evaluate(BANK, arts, ScriptedSolver())
    result = evaluate(BANK, arts, ScriptedSolver(), unknown_queries="ignore")
    assert result.systems["A"].per_query["q1"] == 1 / 3
    with pytest.raises(ValueError, match="unknown_queries"):
        grade(BANK, arts, ScriptedSolver(), unknown_queries="skip")


def test_bad_banks_and_articles():
    with pytest.raises(ValueError, match="not among the choices"):
        QuestionBank([mc("q", "1", key="z")])
    with pytest.raises(ValueError, match="duplicate question id"):
        QuestionBank([mc("q", "1"), mc("q", "1")])
    with pytest.raises(ValueError, match="no answer key"):
        QuestionBank([ExamQuestion("q", "1", "t", {"a": "x"}, None)])
    with pytest.raises(ValueError, match="no questions"):
        evaluate(QuestionBank([]), Articles(), ScriptedSolver())
    arts = Articles({"A": {"q": []}})
    with pytest.raises(ValueError, match="duplicate article"):
        arts.add("A", "q", [])
    with pytest.raises(TypeError, match="paragraph 0 is not a string"):
        Articles({"A": {"q": [None]}})


def test_free_text_questions_verified():
    bank = QuestionBank([ExamQuestion("q", "1", "Where do penguins live?", gold_answers=("Antarctica",))])

    class Echo(Solver):
        name = "echo"

        def solve(self, articles, questions):
            return [[SolverAnswer(None, 1.0, " ".join(a)) for _ in qs] for a, qs in zip(articles, questions)]

    result = evaluate(bank, Articles({"A": {"q": ["They live in antarctica!"]}, "B": {"q": ["In Europe."]}}), Echo())
    assert result.systems["A"].exam == 1.0 and result.systems["B"].exam == 0.0


def test_workbench_graded_round_trip(tmp_path):
    arts = Articles({"A": {"q1": ["1", "2 3"]}, "B": {"q1": ["2 3", "zzz"]}})
    graded = grade_paragraphs(BANK, arts, ScriptedSolver())
    assert len(graded) == 3  # "2 3" is shared by A and B and graded once
    path = tmp_path / "graded.jsonl.gz"
    write_workbench_graded(graded, path, solver=ScriptedSolver())
    (line,) = gzip.open(path, "rt", encoding="utf-8").read().splitlines()
    query_id, paras = json.loads(line)
    shared = next(p for p in paras if p["text"] == "2 3")
    assert query_id == "q1"
    assert {(r["method"], r["rank"]) for r in shared["paragraph_data"]["rankings"]} == {("A", 2), ("B", 1)}
    assert shared["exam_grades"][0]["correctAnswered"] == ["2"]
    assert sorted(shared["exam_grades"][0]["wrongAnswered"]) == ["1", "3"]
    records = cover_records(BANK, graded, ["A", "B"], top_k=1)
    scores = exam_scores(BANK, records)
    assert scores.systems["A"].per_query["q1"] == 1 / 3  # only paragraph "1" is in A's top 1
    assert scores.systems["B"].per_query["q1"] == 1 / 3
