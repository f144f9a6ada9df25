"""The Ava metric: parity with the models' predict_proba, corpus figures, streaming, input checks."""
import importlib.util

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from qascore.ava import Ava, LinearAva, default_linear_model, load_default_model, load_evouna, split_by_question
from qascore.errors import MissingExtraError
from qascore.metric import CorpusScore


@pytest.fixture(scope="module")
def dev_sample(shared_data):
    _, dev = split_by_question(load_evouna(shared_data / "ava" / "evouna" / "NQ.json"))
    return dev.subset(range(0, len(dev), 5))  # 604 triples of five systems


@pytest.fixture(scope="module")
def linear():
    return Ava("linear")


def _batch(t):
    return t.questions, t.references, t.candidates


def test_score_equals_predict_proba_and_predict(linear, dev_sample):
    model = default_linear_model()
    scores = linear.score(*_batch(dev_sample))
    assert len(scores) == len(dev_sample) and set(scores.columns) == {"probability", "label"}
    np.testing.assert_array_equal(scores["probability"], model.predict_proba(*_batch(dev_sample)))
    np.testing.assert_array_equal(scores["label"], model.predict(*_batch(dev_sample)))
    assert scores["label"].dtype == np.int64 and 0 < scores["label"].mean() < 1


def test_corpus_score_is_mean_probability_and_fraction_correct(linear, dev_sample):
    model = default_linear_model()
    p = model.predict_proba(*_batch(dev_sample))
    result = linear.corpus_score(*_batch(dev_sample))
    assert isinstance(result, CorpusScore) and result.n == len(dev_sample)
    assert result["probability"] == pytest.approx(float(np.mean(p)), rel=1e-13)
    assert result["correct"] == float(np.sum(p >= model.threshold)) / len(p)
    assert result.signature == linear.signature()
    assert "qascore:ava|judge:linear|" in result.signature and f"threshold:{model.threshold:.2f}" in result.signature


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 604), max_size=4))
def test_any_split_gives_the_corpus_score(dev_sample, cuts):
    metric = Ava(default_linear_model())
    whole = metric.corpus_score(*_batch(dev_sample))
    bounds = [0, *sorted(cuts), len(dev_sample)]
    for start, stop in zip(bounds, bounds[1:]):
        metric.update(*_batch(dev_sample.subset(range(start, stop))))
    streamed = metric.compute()
    assert streamed.n == whole.n
    assert streamed["correct"] == whole["correct"]  # counts: exact
    assert streamed["probability"] == pytest.approx(whole["probability"], rel=1e-12)  # float sums in another order
    metric.reset()
    with pytest.raises(ValueError, match="before any update"):
        metric.compute()


def test_threshold_and_several_references():
    q = ["who wrote hamlet", "capital of france"]
    refs = [["William Shakespeare", "Shakespeare"], "Paris"]
    t = ["It was William Shakespeare.", "Lyon"]
    p = default_linear_model().predict_proba(q, refs, t)
    for th in (0.0, float(p.min()), float(p.max()) + 1e-9):
        scores = Ava("linear", threshold=th).score(q, refs, t)
        assert scores["label"].tolist() == [int(x >= th) for x in p]
    assert "threshold:0.00" in Ava("linear", threshold=0.0).signature()


def test_empty_batch_and_bad_input(linear):
    empty = linear.corpus_score([], [], [])
    assert empty.n == 0 and empty.values == {"probability": 0.0, "correct": 0.0}
    with pytest.raises(TypeError, match="questions must be a sequence of strings"):
        linear.score("who", ["r"], ["c"])
    with pytest.raises(TypeError, match=r"candidates\[1\] must be str, got NoneType"):
        linear.score(["q", "q"], ["r", "r"], ["c", None])
    with pytest.raises(TypeError, match=r"references\[0\] must be a str or a list of str, got int"):
        linear.score(["q"], [3], ["c"])
    with pytest.raises(ValueError, match=r"differ in length \(2, 1, 2\)"):
        linear.score(["q", "q"], ["r"], ["c", "c"])


def test_linear_predict_proba_names_mismatched_lengths():
    model = default_linear_model()
    with pytest.raises(ValueError, match=r"questions, references and candidates differ in length \(2, 1, 2\)"):
        model.predict_proba(["q", "q"], ["r"], ["c", "c"])
    with pytest.raises(ValueError, match=r"differ in length \(1, 2, 2\)"):  # was an IndexError
        model.predict_proba(["q"], ["r", "r"], ["c", "c"])
    with pytest.raises(ValueError, match=r"differ in length \(0, 1, 1\)"):  # was silently an empty result
        model.predict_proba([], ["r"], ["c"])
    with pytest.raises(ValueError, match="short_answers has 1 items, expected 2"):
        model.predict_proba(["q", "q"], ["r", "r"], ["c", "c"], [["r"]])


def test_missing_onnx_extra_is_one_clear_error(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "onnxruntime" else real(name, *a))
    with pytest.raises(MissingExtraError, match=r'onnxruntime is not installed; install it with: pip install "qascore\[onnx\]"'):
        load_default_model()
    with pytest.raises(MissingExtraError, match=r"qascore\[onnx\]"):
        Ava()
    assert isinstance(Ava("linear").model, LinearAva)  # the linear model needs no extra


def test_onnx_model_parity():
    pytest.importorskip("onnxruntime")
    pytest.importorskip("tokenizers")
    q = ["who wrote hamlet", "who wrote hamlet", "capital of france"]
    refs = ["William Shakespeare", ["William Shakespeare", "Shakespeare"], "Paris"]
    t = ["Hamlet was written by William Shakespeare.", "Charles Dickens wrote it.", "It is Paris."]
    model = load_default_model(device="cpu")
    metric = Ava(device="cpu")
    scores = metric.score(q, refs, t)
    # the same batch through the same int8 graph: the same numbers
    np.testing.assert_array_equal(scores["probability"], model.predict_proba(q, refs, t))
    np.testing.assert_array_equal(scores["label"], model.predict(q, refs, t))
    assert scores["label"].tolist() == [1, 0, 1]
    assert metric.signature().startswith("qascore:ava|judge:ava-cascade|triage:logistic10[") \
        and "then.stack:logit+linear4" in metric.signature()
    assert metric.corpus_score(q, refs, t)["correct"] == pytest.approx(2 / 3)


def test_threads_reach_the_judge_through_its_own_method_and_stay_out_of_the_model_file(tmp_path):
    model = default_linear_model()
    q, r, c = ["who wrote hamlet"] * 2, [["Shakespeare"], "Marlowe"], ["William Shakespeare", "Bacon"]
    metric = Ava(model, n_jobs=2)
    assert metric.model.n_jobs == 2 and model.n_jobs is None
    assert np.array_equal(metric.probabilities(q, r, c), Ava(model).probabilities(q, r, c))
    metric.model.save(tmp_path / "m.json")
    assert "n_jobs" not in (tmp_path / "m.json").read_text()
    assert LinearAva.load(tmp_path / "m.json") == model
