"""EXAM, n-EXAM (gold and EXAM-Cover), per-question records, bad input, and the workbench writer."""
import gzip
import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qascore.exam import scoring
from qascore.exam.records import Articles, ExamQuestion, QuestionBank
from qascore.exam.scoring import GOLD_SYSTEM, evaluate, exam_scores, grade, judge_answers
from qascore.exam.solvers.lexical import LexicalSolver
from qascore.judges.matching import ContainmentJudge, WorkbenchJudge
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
    assert result.signature.startswith("qascore:exam|judge:ava-cascade|queries:3|questions:5|gold:no|version:")


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

    arts = Articles({"A": {"q": ["They live in antarctica!"]}, "B": {"q": ["In Europe."]}})
    result = evaluate(bank, arts, Echo(), judge=WorkbenchJudge())
    assert result.systems["A"].exam == 1.0 and result.systems["B"].exam == 0.0


class CountingJudge(ContainmentJudge):
    """Containment, recording the candidates of each call."""

    def __init__(self):
        super().__init__()
        self.calls = []

    def predict_proba(self, questions, references, candidates):
        self.calls.append(list(candidates))
        return super().predict_proba(questions, references, candidates)


def free(qid, gold):
    return ExamQuestion("q", qid, f"question {qid}", gold_answers=(gold,))


def test_alternatives_are_read_only_after_the_answer_is_rejected_and_the_first_accepted_is_the_answer():
    questions = [free("1", "alpha"), free("2", "beta"), free("3", "gamma"), mc("q", "4")]
    answers = [SolverAnswer(None, 1.0, "alpha here", ("beta", "alpha too")),  # accepted at once
               SolverAnswer(None, 1.0, "nothing", ("not it", "beta is", "beta as well")),  # the second alternative
               SolverAnswer(None, 0.0, "nothing", ("not it",)),  # none: wrong, its first answer kept
               SolverAnswer("a", 1.0)]
    judge = CountingJudge()
    correct, graded = judge_answers(questions, answers, judge)
    assert correct == [True, True, False, True]
    assert [a.text for a in graded[:3]] == ["alpha here", "beta is", "nothing"]
    assert all(a.alternatives == () for a in graded)
    # first every answer's text (one distinct pair each), then the rejected answers' alternatives
    assert judge.calls == [["alpha here", "nothing", "nothing"], ["not it", "beta is", "beta as well", "not it"]]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["alpha", "beta"]),
                          st.lists(st.sampled_from(["alpha", "beta", "x", "alpha beta", ""]), min_size=1,
                                   max_size=5)),
                min_size=1, max_size=8))
def test_stopping_at_the_first_accepted_answer_equals_judging_every_answer(rows):
    questions = [free(str(i), gold) for i, (gold, _) in enumerate(rows)]
    answers = [SolverAnswer(None, 1.0, texts[0], tuple(texts[1:])) for _, texts in rows]
    correct, graded = judge_answers(questions, answers, ContainmentJudge())
    for (gold, texts), right, answer in zip(rows, correct, graded):
        verdicts = ContainmentJudge().judge(["q"] * len(texts), [[gold]] * len(texts), texts).labels
        assert right == bool(verdicts.any())
        assert answer.text == (texts[int(verdicts.argmax())] if right else texts[0])


def test_the_default_judge_loads_only_for_free_text_answers(monkeypatch):
    """Without a judge, free-text answers go to the shipped AVA model (scoring.default_judge),
    loaded on first use: a multiple-choice bank never loads it; the signature names it either way."""
    monkeypatch.setattr(scoring, "default_judge", lambda: pytest.fail("loaded the default judge"))
    result = evaluate(BANK, Articles({"A": {"q1": ["1 2 3"]}}), ScriptedSolver())
    assert "|judge:ava-cascade|" in result.signature
    judge = CountingJudge()
    monkeypatch.setattr(scoring, "default_judge", lambda: judge)
    bank = QuestionBank([free("1", "alpha")])
    result = evaluate(bank, Articles({"A": {"q": ["alpha"]}}), LexicalSolver())
    assert judge.calls == [["alpha"]] and result.systems["A"].exam == 1.0 and "|judge:ava-cascade|" in result.signature


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
