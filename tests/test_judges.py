"""The judge interface: string judges, the cascade, spec loading, and EXAM / AVA taking any judge."""
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qascore.ava import Ava
from qascore.exam.records import Articles, ExamQuestion, QuestionBank
from qascore.exam.scoring import evaluate
from qascore.exam.solvers.base import Solver, SolverAnswer
from qascore.judges import (CascadeJudge, ContainmentJudge, ExactMatchJudge, Judge, LinearAva, TokenF1Judge,
                            Verdicts, WorkbenchJudge, load_judge, load_model, verify_free_text)
from qascore.text.answers import normalise_answer

QUESTIONS = ["who wrote hamlet", "capital of france", "capital of france"]
REFERENCES = [["Shakespeare", "William Shakespeare"], "Paris", ["Lyon", "Paris"]]
CANDIDATES = ["It was William Shakespeare.", "I think it's Marseille", "the answer is PARIS!"]


def test_containment_any_alias_and_mean_share():
    verdicts = ContainmentJudge().judge(QUESTIONS, REFERENCES, CANDIDATES)
    assert isinstance(verdicts, Verdicts)
    assert verdicts.proba.tolist() == [1.0, 0.0, 1.0] and verdicts.labels.tolist() == [True, False, True]
    assert ContainmentJudge("mean").predict_proba(QUESTIONS, REFERENCES, CANDIDATES).tolist() == [1.0, 0.0, 0.5]


def test_exact_match_and_token_f1():
    q, r, t = ["q"] * 3, [["The Beatles"], "new york city", "red"], ["beatles", "New York", "blue"]
    assert ExactMatchJudge().predict(q, r, t).tolist() == [1, 0, 0]
    assert TokenF1Judge().predict_proba(q, r, t).tolist() == pytest.approx([1.0, 0.8, 0.0])


words = st.sampled_from(["the", "Paris", "paris,", "a", "city", "Lyon", "of", "France.", "an", "!"])
texts = st.lists(words, min_size=0, max_size=6).map(" ".join)


@settings(max_examples=300, deadline=None)
@given(refs=st.lists(texts, min_size=1, max_size=4), candidate=texts)
def test_containment_is_normalised_substring_of_any_reference(refs, candidate):
    expected = any(normalise_answer(r) and normalise_answer(r) in normalise_answer(candidate) for r in refs)
    assert ContainmentJudge().predict(["q"], [refs], [candidate]).tolist() == [int(expected)]


@settings(max_examples=200, deadline=None)
@given(refs=st.lists(texts, min_size=1, max_size=3), candidate=texts)
def test_workbench_judge_is_the_free_text_verifier(refs, candidate):
    assert WorkbenchJudge().predict(["q"], [refs], [candidate]).tolist() == [int(verify_free_text(candidate, refs))]


class Recorder(Judge):
    """A judge that says 0.7 for every triple and remembers what it was asked."""

    name = "recorder"

    def __init__(self):
        self.threshold = 0.6
        self.seen: list = []

    def predict_proba(self, questions, references, candidates):
        self.seen.extend(candidates)
        return np.full(len(candidates), 0.7)


def test_cascade_runs_the_second_judge_only_on_what_the_first_rejects():
    second = Recorder()
    verdicts = CascadeJudge(ContainmentJudge(), second).judge(QUESTIONS, REFERENCES, CANDIDATES)
    assert second.seen == ["I think it's Marseille"]
    assert verdicts.proba.tolist() == [1.0, 0.7, 1.0] and verdicts.labels.tolist() == [True, True, True]
    assert CascadeJudge(ContainmentJudge(), second).threshold == 0.6


def test_cascade_with_the_linear_model_equals_its_parts():
    linear = load_model("linear")
    cascade = load_judge("containment>linear")
    got = cascade.judge(QUESTIONS, REFERENCES, CANDIDATES)
    contained = ContainmentJudge().predict(QUESTIONS, REFERENCES, CANDIDATES).astype(bool)
    alone = linear.predict_proba(QUESTIONS, REFERENCES, CANDIDATES)
    assert np.array_equal(got.proba, np.where(contained, 1.0, alone))
    assert np.array_equal(got.labels, contained | (alone >= linear.threshold))
    assert "first:containment" in cascade.signature() and "then:ava-linear" in cascade.signature()


@pytest.mark.parametrize("spec, kind", [("containment", ContainmentJudge), ("exact-match", ExactMatchJudge),
                                        ("token-f1", TokenF1Judge), ("workbench", WorkbenchJudge),
                                        ("linear", LinearAva), ("containment>linear", CascadeJudge)])
def test_specs_name_their_judges(spec, kind):
    judge = load_judge(spec, refs="mean") if spec != "workbench" else load_judge(spec)
    assert isinstance(judge, kind)
    assert getattr(judge, "refs", "mean") == "mean"
    assert pickle.loads(pickle.dumps(judge)).judge(QUESTIONS, REFERENCES, CANDIDATES).labels.tolist() == \
        judge.judge(QUESTIONS, REFERENCES, CANDIDATES).labels.tolist()


def test_cascade_spec_means_containment_then_the_shipped_model():
    pytest.importorskip("onnxruntime")
    pytest.importorskip("tokenizers")
    judge = load_judge("cascade", n_threads=1).inner  # a judge that runs a network comes with a verdict cache
    assert isinstance(judge, CascadeJudge) and judge.first.name == "containment" and judge.then.name == "ava-cascade"


@pytest.mark.parametrize("spec", ["", "nope.json", "containment>"])
def test_bad_specs_are_named_errors(spec):
    with pytest.raises((ValueError, OSError)):
        load_judge(spec)


def test_load_model_refuses_a_judge_that_is_not_a_model():
    with pytest.raises(ValueError, match="is a judge, not an AVA model"):
        load_model("containment")


def test_a_model_is_read_by_path_from_a_regular_file_or_a_directory(tmp_path):
    import os

    from qascore.judges.linear import default_linear_model

    saved = tmp_path / "linear.model"  # any name: a regular file is a linear model's JSON
    default_linear_model().save(saved)
    assert load_model(str(saved)) == default_linear_model()
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match=r"pipe.*not a regular file or a directory"):
        load_model(str(fifo))


def test_judges_check_their_inputs():
    with pytest.raises(ValueError, match=r"differ in length \(2, 1, 2\)"):
        ContainmentJudge().judge(["q", "q"], ["r"], ["t", "t"])
    with pytest.raises(TypeError, match=r"references\[0\] must be a str or a list of str"):
        WorkbenchJudge().judge(["q"], [None], ["t"])
    with pytest.raises(ValueError, match=r"references\[0\] is empty"):
        ContainmentJudge().judge(["q"], [[]], ["t"])


def test_ava_metric_takes_any_judge():
    scores = Ava("containment").score(QUESTIONS, REFERENCES, CANDIDATES)
    assert scores["label"].tolist() == [1, 0, 1]
    assert "judge:containment" in Ava("containment").signature()
    linear = Ava("linear").score(QUESTIONS, REFERENCES, CANDIDATES)
    assert "judge:linear" in Ava("linear").signature()
    assert np.array_equal(linear["probability"], load_model("linear").predict_proba(QUESTIONS, REFERENCES,
                                                                                    CANDIDATES))


class Echo(Solver):
    """Answers every free-text question with the whole article."""

    name = "echo"

    def solve(self, articles, questions):
        return [[SolverAnswer(None, 1.0, " ".join(a)) for _ in qs] for a, qs in zip(articles, questions)]


def test_exam_grades_free_text_with_the_judge_given():
    bank = QuestionBank([ExamQuestion("q", "1", "What did he sell?", gold_answers=("running shoes", "sneakers")),
                         ExamQuestion("q", "2", "What colour is the sky?", gold_answers=("blue",)),
                         ExamQuestion("q", "3", "Pick one", {"a": "x", "b": "y"}, "a")])
    articles = Articles({"A": {"q": ["He sold run shoes under a blue sky."]}})
    workbench = evaluate(bank, articles, Echo(), judge=WorkbenchJudge())
    containment = evaluate(bank, articles, Echo(), judge=ContainmentJudge())
    assert [r.correct for r in workbench.records] == [True, True, False]  # stemmed: running shoes -> run shoe
    assert [r.correct for r in containment.records] == [False, True, False]
    assert "judge:workbench" in workbench.signature and "judge:containment" in containment.signature
    recorder = Recorder()
    evaluate(bank, articles, Echo(), judge=recorder)
    assert len(recorder.seen) == 2  # the free-text answers only, in one call
