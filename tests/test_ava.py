"""AVA: features kernel, linear model, evaluation, data formats, shipped models (the CLI: test_ava_cli.py)."""
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from qascore.ava.data import load_evouna, load_jsonl_triples, split_by_question, split_gold_alternatives
from qascore.ava.evaluate import (
    agreement,
    baseline_predictions,
    pointwise,
    ranking_metrics,
    system_accuracies,
    tune_threshold,
)
from qascore.judges.linear import LinearAva, compute_features, default_linear_model, train_linear
from qascore.judges.architectures import PAPER_CONFIGURATIONS, architecture
from qascore.errors import InputFormatError
from qascore.io import read_json
from qascore.models import bundled_path
from qascore.text import get_tokenizer

# --- features: kernel vs a plain-Python reference ------------------------------------------

def _ref_sim(a, b):
    A, B = set(a), set(b)
    return 0.0 if not A and not B else 2 * len(A & B) / (len(A) + len(B))


def _ref_included(shorts, t):
    for s in shorts:
        if s and any(t[i : i + len(s)] == s for i in range(len(t) - len(s) + 1)):
            return 1.0
    return 0.0


def _ref_features(q, r, t, shorts):
    tok = get_tokenizer("rouge").tokenize
    q, r, t = tok(q), tok(r), tok(t)
    return [_ref_included([tok(s) for s in shorts], t), _ref_sim(r, t), _ref_sim(r, q), _ref_sim(q, t)]


WORDS = st.lists(st.sampled_from(["the", "cat", "Paris", "is", "1989", "x", "Röntgen", "", "a-b", "!"]), max_size=9).map(" ".join)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(WORDS, WORDS, WORDS, st.lists(WORDS, max_size=3)), min_size=1, max_size=12), st.integers(1, 3))
def test_features_match_plain_reference(rows, n_jobs):
    q, r, t, s = map(list, zip(*rows))
    shorts = [g if g else [ref] for g, ref in zip(s, r)]
    got = compute_features(q, r, t, shorts, n_jobs=n_jobs)
    want = np.array([_ref_features(*row) for row in zip(q, r, t, shorts)])
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


def test_features_defined_on_empty_and_unicode():
    f = compute_features(["", "東京"], ["", "東京"], ["", "東京 tower"], n_jobs=1)
    assert f.tolist()[0] == [0.0, 0.0, 0.0, 0.0]  # nothing to include, no tokens: similarity 0
    assert np.isfinite(f).all()


def test_features_on_real_data_match_reference(shared_data):
    triples = load_evouna(shared_data / "ava" / "evouna" / "NQ.json").subset(range(0, 15000, 37))
    refs = [r[0] for r in triples.references]
    shorts = [split_gold_alternatives(r) for r in refs]
    got = compute_features(triples.questions, refs, triples.candidates, shorts)
    want = np.array([_ref_features(*row) for row in zip(triples.questions, refs, triples.candidates, shorts)])
    np.testing.assert_allclose(got, want, atol=1e-12)


# --- linear model ----------------------------------------------------------------------------

def test_linear_numpy_inference_equals_sklearn():
    pytest.importorskip("sklearn")
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.svm import LinearSVC

    rng = np.random.default_rng(0)
    x = rng.random((400, 4))
    y = (x[:, 0] + x[:, 1] + 0.3 * rng.standard_normal(400) > 1).astype(int)
    model = train_linear(x, y, seed=3)
    ref = CalibratedClassifierCV(LinearSVC(random_state=3), method="sigmoid", ensemble=False, cv=5).fit(x, y)
    np.testing.assert_allclose(model.proba_of_features(x), ref.predict_proba(x)[:, 1], atol=1e-10)


def test_linear_model_round_trip_and_bad_labels(tmp_path):
    model = LinearAva([1.0, 2.0, 0.0, 0.5], -1.0, -2.0, 0.1, threshold=0.4, recipe={"x": 1})
    model.save(tmp_path / "m.json")
    assert LinearAva.load(tmp_path / "m.json") == model
    with pytest.raises(ValueError, match="both 0 and 1"):
        train_linear(np.zeros((5, 4)), np.ones(5, dtype=int))
    with pytest.raises(FileNotFoundError, match="linear AVA model file not found"):
        LinearAva.load(tmp_path / "missing.json")


def test_shipped_linear_model_beats_containment_on_dev(shared_data):
    _, dev = split_by_question(load_evouna(shared_data / "ava" / "evouna" / "NQ.json"))
    model = default_linear_model()
    shorts = [split_gold_alternatives(r[0]) for r in dev.references]
    pred = model.predict(dev.questions, dev.references, dev.candidates, shorts)
    contained = baseline_predictions("containment", dev.candidates, shorts)
    assert pointwise(dev.labels, pred).accuracy > pointwise(dev.labels, contained).accuracy


# --- evaluation --------------------------------------------------------------------------------

@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 1)), min_size=1, max_size=40))
def test_pointwise_matches_sklearn(pairs):
    from sklearn.metrics import accuracy_score, f1_score, precision_score, recall_score

    y, p = map(np.array, zip(*pairs))
    r = pointwise(y, p)
    assert r.precision == pytest.approx(precision_score(y, p, zero_division=0))
    assert r.recall == pytest.approx(recall_score(y, p, zero_division=0))
    assert r.f1 == pytest.approx(f1_score(y, p, zero_division=0))
    assert r.accuracy == pytest.approx(accuracy_score(y, p))


def _ref_ranking(scores, labels, groups):
    out = {"P@1": [], "MAP": [], "MRR": []}
    for g in dict.fromkeys(groups):
        items = sorted([(s, lab) for s, lab, gg in zip(scores, labels, groups) if gg == g], key=lambda x: -x[0])
        rel = [lab for _, lab in items]
        if sum(rel) in (0, len(rel)):
            continue
        out["P@1"].append(rel[0])
        hits, precisions = 0, []
        for k, lab in enumerate(rel, 1):
            if lab:
                hits += 1
                precisions.append(hits / k)
        out["MAP"].append(sum(precisions) / hits)
        out["MRR"].append(1 / (rel.index(1) + 1))
    return {k: sum(v) / len(v) for k, v in out.items()} if out["P@1"] else None


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1), st.integers(0, 1), st.integers(0, 5)), min_size=1, max_size=40))
def test_ranking_metrics_match_reference(rows):
    scores, labels, groups = map(list, zip(*rows))
    want = _ref_ranking(scores, labels, groups)
    if want is None:
        with pytest.raises(ValueError, match="all-0 or all-1"):
            ranking_metrics(scores, labels, groups)
        return
    got = ranking_metrics(scores, labels, groups)
    for k in ("P@1", "MAP", "MRR"):
        assert got[k] == pytest.approx(want[k])


def test_agreement_matches_scipy_kendall():
    from scipy.stats import kendalltau

    est = {"a": 0.7, "b": 0.6, "c": 0.9, "d": 0.65}
    gold = {"a": 0.72, "b": 0.55, "c": 0.8, "d": 0.66}
    a = agreement(est, gold)
    ref = kendalltau(list(est.values()), list(gold.values()))
    assert a.kendall_tau == pytest.approx(ref.statistic) and a.kendall_p == pytest.approx(ref.pvalue)
    errors = np.array([0.02, 0.05, 0.1, 0.01])
    assert a.rmse == pytest.approx(np.sqrt(np.mean(errors ** 2))) and a.std == pytest.approx(errors.std())


def test_tune_threshold_minimises_rmse():
    rng = np.random.default_rng(1)
    systems = np.repeat(["s1", "s2", "s3"], 200)
    labels = (rng.random(600) < np.repeat([0.5, 0.7, 0.9], 200)).astype(int)
    probs = np.clip(labels * 0.3 + rng.random(600) * 0.7, 0, 1)
    th = tune_threshold(probs, labels, systems)
    gold = system_accuracies(labels, systems)
    best = agreement(system_accuracies(probs >= th, systems), gold).rmse
    for other in (0.2, 0.4, 0.6, 0.8):
        assert best <= agreement(system_accuracies(probs >= other, systems), gold).rmse


def test_baselines():
    golds = [["Wilhelm Röntgen"], ["8", "eight"]]
    cands = ["It was Wilhelm Röntgen.", "eight"]
    assert baseline_predictions("containment", cands, golds).tolist() == [1, 1]
    assert baseline_predictions("exact_match", cands, golds).tolist() == [0, 1]
    assert baseline_predictions("token_f1", cands, golds).tolist() == [1, 1]
    with pytest.raises(ValueError, match="unknown baseline"):
        baseline_predictions("bleu", cands, golds)


# --- data ----------------------------------------------------------------------------------

def test_evouna_counts_and_split(shared_data):
    triples = load_evouna(shared_data / "ava" / "evouna" / "NQ.json")
    assert len(triples) == 15098  # judged answers of proper questions (docs: 15,098)
    assert triples.dropped["improper_questions"] == 590
    train, dev = split_by_question(triples)
    assert not set(train.question_ids) & set(dev.question_ids)
    assert len(train) + len(dev) == len(triples)
    again_train, _ = split_by_question(triples)
    assert again_train.question_ids == train.question_ids


def test_jsonl_errors_name_file_and_line(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": "q", "reference": "r", "candidate": "t"}\n{"question": "q", "candidate": "t"}\n')
    with pytest.raises(InputFormatError, match=r"bad.jsonl:2: missing field 'reference'"):
        load_jsonl_triples(bad)
    bad.write_text('{"question": "q", "reference": [], "candidate": "t"}\n')
    with pytest.raises(InputFormatError, match=r":1: field 'reference' must be a string or a non-empty list"):
        load_jsonl_triples(bad)
    bad.write_text('{"question": "q", "reference": "r", "candidate": "t", "label": 2}\n')
    with pytest.raises(InputFormatError, match=r":1: field 'label' must be 0/1"):
        load_jsonl_triples(bad, need_label=True)


def test_evouna_bad_file(tmp_path):
    p = tmp_path / "x.json"
    p.write_text('{"not": "a list"}')
    with pytest.raises(InputFormatError, match="expected a JSON list"):
        load_evouna(p)


# --- shipped transformer model (ONNX Runtime, no torch) ---------------------------------------

ort = pytest.importorskip("onnxruntime")
from qascore.judges.onnx import OnnxAvaModel, default_model_dir, load_default_network  # noqa: E402
from qascore.runtime import ModelFileError, ModelInputError, TruncationWarning  # noqa: E402


@pytest.fixture(scope="module")
def shipped():
    return load_default_network(device="cpu")


def test_shipped_model_is_small_and_described(shipped):
    assert (default_model_dir() / "model.onnx").stat().st_size <= 25 * 1000 * 1000
    assert shipped.arch == "a2" and 0 < shipped.threshold < 1
    assert "qascore:ava|" in shipped.signature() and "device:cpu" in shipped.signature()


def test_shipped_model_quality_on_dev_sample(shipped, shared_data):
    _, dev = split_by_question(load_evouna(shared_data / "ava" / "evouna" / "NQ.json"))
    sample = dev.subset(range(0, len(dev), 20))
    pred = shipped.predict(sample.questions, sample.references, sample.candidates)
    shorts = [split_gold_alternatives(r[0]) for r in sample.references]
    base = baseline_predictions("containment", sample.candidates, shorts)
    acc = pointwise(sample.labels, pred).accuracy
    assert acc >= 0.88 and acc > pointwise(sample.labels, base).accuracy + 0.03


def test_shipped_model_order_and_references(shipped):
    q = ["who wrote hamlet", "who wrote hamlet"]
    t = ["Hamlet was written by William Shakespeare.", "Charles Dickens wrote it."]
    p = shipped.predict_proba(q, ["William Shakespeare"] * 2, t)
    assert p[0] > 0.5 > p[1]
    p_rev = shipped.predict_proba(q[::-1], ["William Shakespeare"] * 2, t[::-1])
    np.testing.assert_allclose(p_rev, p[::-1], atol=1e-6)
    single = [shipped.predict_proba(q[:1], [r], t[:1])[0] for r in ("William Shakespeare", "Dickens")]
    two = shipped.predict_proba(q[:1], [["William Shakespeare", "Dickens"]], t[:1])
    assert two[0] == pytest.approx(max(single), abs=1e-5)  # refs="max", the default
    two = shipped.with_refs("mean").predict_proba(q[:1], [["William Shakespeare", "Dickens"]], t[:1])
    assert two[0] == pytest.approx(np.mean(single), abs=1e-5)


def test_empty_and_overlong_texts(shipped):
    p = shipped.predict_proba(["", "q"], ["", "r"], ["", "t"])
    assert np.isfinite(p).all()
    with pytest.warns(TruncationWarning, match="truncated"):
        shipped.predict_proba(["what?"], ["yes"], ["word " * 400])
    with pytest.raises(ValueError, match="references\\[0\\] is empty"):
        shipped.predict_proba(["q"], [[]], ["t"])
    assert shipped.predict_proba([], [], []).shape == (0,)


def test_model_dir_errors(tmp_path):
    with pytest.raises(ModelFileError, match="model.json"):
        OnnxAvaModel.from_dir(tmp_path)
    # a copy of the shipped model.json names the tokenizer bundled with qascore, wherever it lies
    shutil.copy(default_model_dir() / "model.json", tmp_path / "model.json")
    with pytest.raises(ModelFileError, match="model file not found"):
        OnnxAvaModel.from_dir(tmp_path)
    shutil.copy(Path(__file__).parent / "data" / "identity.onnx", tmp_path / "model.onnx")
    with pytest.raises(ModelInputError, match="do not match"):
        OnnxAvaModel.from_dir(tmp_path, device="cpu")
    meta = read_json(tmp_path / "model.json")
    for bad, message in ((["minilm"], "'bundled_tokenizer' must be a path in qascore/models"),
                         ("minilm/no-such.json", "tokenizer file not found: .*no-such.json")):
        (tmp_path / "model.json").write_text(json.dumps({**meta, "bundled_tokenizer": bad}))
        with pytest.raises(ModelFileError, match=message):
            OnnxAvaModel.from_dir(tmp_path, device="cpu")


def test_model_dir_without_bundled_tokenizer_reads_its_own(tmp_path):
    meta = read_json(default_model_dir() / "model.json")
    del meta["bundled_tokenizer"]
    (tmp_path / "model.json").write_text(json.dumps(meta))
    shutil.copy(default_model_dir() / "model.onnx", tmp_path / "model.onnx")
    with pytest.raises(ModelFileError, match="tokenizer file not found"):
        OnnxAvaModel.from_dir(tmp_path, device="cpu")
    shutil.copy(bundled_path("minilm", "tokenizer.json"), tmp_path / "tokenizer.json")
    model = OnnxAvaModel.from_dir(tmp_path, device="cpu")
    assert model.tokenizer.tokenizer_file == tmp_path / "tokenizer.json"


@pytest.mark.parametrize("arch", ["a2", "a0", *PAPER_CONFIGURATIONS])
def test_export_parity_on_a_small_network(tmp_path, arch):
    torch = pytest.importorskip("torch", reason="torch (train extra) not installed: export parity needs torch")
    transformers = pytest.importorskip("transformers")
    pytest.importorskip("onnx")
    import importlib.util

    spec = importlib.util.spec_from_file_location("export_ava", Path(__file__).resolve().parents[1] / "onnx_export" / "export_ava.py")
    export_ava = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(export_ava)
    from qascore.ava.torch_models import ava_net_from_config

    config = transformers.BertConfig(vocab_size=30522, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                                     intermediate_size=64)
    torch.manual_seed(0)
    model = ava_net_from_config(arch, config).eval()
    spec_of = architecture(arch)
    # one encoder per pair (paper configurations, a0) or one shared; A2 one peer block per pair
    assert len(model.encoders) == spec_of.n_encoders
    assert (model.peers is not None) == (spec_of.peer == "separate")
    if model.peers is not None:
        assert model.peers[0].query.weight.data_ptr() != model.peers[1].query.weight.data_ptr()
    export_ava.export_onnx(model, arch, tmp_path / "model.onnx")
    onnx_model = OnnxAvaModel(tmp_path / "model.onnx", tokenizer_file=bundled_path("minilm", "tokenizer.json"), arch=arch, device="cpu")
    q, r, t = ["who wrote hamlet", "capital of france"], ["Shakespeare", "Paris"], ["It was Shakespeare.", "Lyon, I think, or maybe Paris"]
    from qascore.ava.training import encode_slots, predict_logits_torch

    slots = encode_slots(onnx_model.tokenizer, arch, q, r, t, truncation="allow")
    want = predict_logits_torch(model, slots, onnx_model.tokenizer.pad_id, "cpu")
    np.testing.assert_allclose(onnx_model.logits_of_slots(slots), want, atol=1e-4)
