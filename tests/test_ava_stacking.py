"""The stacker (transformer logit + linear features) and the AS2 -> AVA data construction."""
import json

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from qascore.ava.data import calibration_split, concat_triples, load_as2_as_ava, load_evouna, split_by_question
from qascore.judges.features import compute_features
from qascore.judges.triples import expand_rows, mean_by_owner
from qascore.judges.stacking import STACK_INPUTS, Stacker, fit_stacker, stack_inputs
from qascore.judges.onnx import load_default_network
from qascore.errors import InputFormatError


def _toy(seed, n=300):
    rng = np.random.default_rng(seed)
    logits, feats = rng.normal(0, 3, n), rng.random((n, 4))
    labels = (logits + 2 * feats[:, 0] + rng.normal(0, 1, n) > 1).astype(int)
    return logits, feats, labels


@settings(max_examples=3, deadline=None)  # each example fits 2 x 45 models
@given(st.integers(0, 10_000))
def test_stacker_equals_sklearn_predict_proba(seed):
    from sklearn.linear_model import LogisticRegressionCV

    logits, feats, labels = _toy(seed)
    stacker = fit_stacker(logits, feats, labels)
    reference = LogisticRegressionCV(Cs=list(np.logspace(-2, 2, 9)), cv=5, scoring="neg_log_loss").fit(np.column_stack([logits, feats]), labels)
    np.testing.assert_allclose(stacker.proba(logits, feats), reference.predict_proba(np.column_stack([logits, feats]))[:, 1],
                               atol=1e-10)
    # plain formula, written out
    w, b = stacker.weights, stacker.bias
    manual = [1 / (1 + np.exp(-(w[0] * z + sum(w[k + 1] * f[k] for k in range(4)) + b))) for z, f in zip(logits, feats)]
    np.testing.assert_allclose(stacker.proba(logits, feats), manual, atol=1e-12)
    assert Stacker.from_dict(json.loads(json.dumps(stacker.as_dict()))) == stacker


def test_stacker_errors():
    logits, feats, labels = _toy(1)
    with pytest.raises(ValueError, match="both classes"):
        fit_stacker(logits, feats, np.zeros_like(labels))
    with pytest.raises(ValueError, match="features must be"):
        stack_inputs(logits, feats[:, :3])
    with pytest.raises(ValueError, match="weights"):
        Stacker([1.0, 2.0], 0.0)
    assert stack_inputs(logits[:0], feats[:0]).shape == (0, len(STACK_INPUTS))


def _as2_file(tmp_path, lines):
    path = tmp_path / "as2.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    return path


def test_as2_to_ava_construction(tmp_path):
    lines = [
        {"question": "q1", "candidates": [{"sentence": "a", "label": 0}, {"sentence": "b", "label": 1},
                                          {"sentence": "c", "label": 1}, {"sentence": "d", "label": 0}]},
        {"question": "q2", "candidates": [{"sentence": "x", "label": 0}]},
        {"question": "q3", "candidates": [{"sentence": "y", "label": 1}, {"sentence": "z", "label": 0}]},
    ]
    t = load_as2_as_ava(_as2_file(tmp_path, lines), construction="one_reference", seed=3)
    assert t.dropped == {"no_correct_sentence": 1}
    by_q = {}
    for q, r, c, y in zip(t.questions, t.references, t.candidates, t.labels):
        by_q.setdefault(q, []).append((r[0], c, int(y)))
    assert set(by_q) == {"q1", "q3"} and by_q["q3"] == [("y", "z", 0)]
    ref = by_q["q1"][0][0]
    assert ref in ("b", "c") and all(r == ref for r, _, _ in by_q["q1"])  # one correct sentence is the reference
    gold = {"a": 0, "b": 1, "c": 1, "d": 0}
    assert sorted(c for _, c, _ in by_q["q1"]) == sorted(set(gold) - {ref})
    assert all(y == gold[c] for _, c, y in by_q["q1"])
    capped = load_as2_as_ava(_as2_file(tmp_path, lines), construction="one_reference", seed=3, max_candidates=1)
    assert [c for q, c, y in zip(capped.questions, capped.candidates, capped.labels) if q == "q1"] == [{"b": "c", "c": "b"}[ref]]
    both = concat_triples([t, capped])
    assert len(both) == len(t) + len(capped) and len(set(both.question_ids)) == 4


def test_as2_bad_line_names_file_and_line(tmp_path):
    path = _as2_file(tmp_path, [{"question": "q", "candidates": [{"sentence": "a", "label": 1}]},
                                {"question": "q", "candidates": [{"sentence": "a", "label": 2}]}])
    with pytest.raises(InputFormatError, match="as2.jsonl.*2"):
        load_as2_as_ava(path)


def test_as2_on_real_trecqa(restricted_data):
    t = load_as2_as_ava(restricted_data / "ava" / "trecqa" / "train.jsonl", construction="one_reference", seed=13,
                        max_candidates=40)
    assert len(t) == 2015 and 0.1 < t.labels.mean() < 0.3
    paper = load_as2_as_ava(restricted_data / "ava" / "trecqa" / "train.jsonl")
    # 62 of the 94 questions have two or more correct sentences: 7,620 positive and 83,269 negative
    # ordered pairs before dropping pairs of identical sentences
    assert paper.dropped == {"fewer_than_two_correct": 32}
    assert 7000 < int(paper.labels.sum()) <= 7620 and 80000 < len(paper) - int(paper.labels.sum()) <= 83269


def test_as2_paper_construction_pairs_correct_sentences(tmp_path):
    lines = [
        {"question": "q1", "candidates": [{"sentence": "a", "label": 0}, {"sentence": "b", "label": 1},
                                          {"sentence": "c", "label": 1}, {"sentence": "d", "label": 0}]},
        {"question": "q2", "candidates": [{"sentence": "x", "label": 1}, {"sentence": "y", "label": 0}]},
        {"question": "q3", "candidates": [{"sentence": "s", "label": 1}, {"sentence": "s", "label": 1},
                                          {"sentence": "u", "label": 0}]},
    ]
    t = load_as2_as_ava(_as2_file(tmp_path, lines))
    assert t.dropped == {"fewer_than_two_correct": 1}
    got = sorted((q, r[0], c, int(y)) for q, r, c, y in zip(t.questions, t.references, t.candidates, t.labels))
    # positives: ordered pairs of two different correct sentences; negatives: a correct reference
    # with an incorrect candidate; q3's two correct sentences are the same text, so no positive
    assert got == sorted([
        ("q1", "b", "c", 1), ("q1", "c", "b", 1),
        ("q1", "b", "a", 0), ("q1", "b", "d", 0), ("q1", "c", "a", 0), ("q1", "c", "d", 0),
        ("q3", "s", "u", 0), ("q3", "s", "u", 0),
    ])
    capped = load_as2_as_ava(_as2_file(tmp_path, lines), max_pairs_per_question=3, seed=5)
    assert sum(q == "q1" for q in capped.questions) == 3 and set(capped.candidates) <= {"a", "b", "c", "d", "u"}
    balanced = load_as2_as_ava(_as2_file(tmp_path, lines), max_pairs_per_question=1, per_label=True, seed=5)
    assert sorted(int(y) for q, y in zip(balanced.questions, balanced.labels) if q == "q1") == [0, 1]
    again = load_as2_as_ava(_as2_file(tmp_path, lines), max_pairs_per_question=3, seed=5)
    assert capped.candidates == again.candidates and capped.references == again.references
    with pytest.raises(ValueError, match="max_candidates applies"):
        load_as2_as_ava(_as2_file(tmp_path, lines), max_candidates=3)
    with pytest.raises(ValueError, match="construction must be"):
        load_as2_as_ava(_as2_file(tmp_path, lines), construction="paper")


def test_calibration_split_is_disjoint_from_fit_and_dev(shared_data):
    train, dev = split_by_question(load_evouna(shared_data / "ava" / "evouna" / "NQ.json"))
    fit, cal = calibration_split(train)
    assert (len(fit), len(cal)) == (10868, 1210)
    assert not (set(cal.question_ids) & set(fit.question_ids)) and not (set(cal.question_ids) & set(dev.question_ids))


def test_shipped_stacked_model_equals_its_parts():
    model = load_default_network(device="cpu")
    assert model.stacker is not None and "stack:logit+linear4" in model.signature()
    q = ["who wrote hamlet", "who wrote hamlet", "capital of france"]
    refs = ["William Shakespeare", ["William Shakespeare", "Shakespeare"], "Paris"]
    t = ["Hamlet was written by William Shakespeare.", "Charles Dickens wrote it.", "It is Paris."]
    rq, rr, rt, owner = expand_rows(q, refs, t)
    rows = model.stacker.proba(model.row_logits(rq, rr, rt), compute_features(rq, rr, rt))
    np.testing.assert_allclose(model.with_refs("mean").predict_proba(q, refs, t), mean_by_owner(rows, owner, 3),
                               atol=1e-12)
    best = [rows[owner == i].max() for i in range(3)]
    np.testing.assert_allclose(model.predict_proba(q, refs, t), best, atol=1e-12)
    assert model.predict_proba(q, refs, t)[0] > 0.5 > model.predict_proba(q, refs, t)[1]


def test_cli_calibrate_writes_stacker_and_threshold(tmp_path):
    import shutil

    from qascore.judges.onnx import OnnxAvaModel, default_model_dir
    from qascore.cli import main as cli_main

    rng = np.random.default_rng(0)
    records = []
    for k in range(250):
        rec = {"question": f"who is person number {k}", "golden_answer": f"name{k}/n{k}", "improper": False}
        for system in ("fid", "gpt35", "chatgpt", "gpt4", "newbing"):
            right = bool(rng.random() < 0.6)
            rec[f"answer_{system}"] = f"it is name{k} of course" if right else f"nobody called other{k}"
            rec[f"judge_{system}"] = right
        records.append(rec)
    data = tmp_path / "NQ.json"
    data.write_text(json.dumps(records), encoding="utf-8")
    model_dir = tmp_path / "model"
    shutil.copytree(default_model_dir(), model_dir)
    meta = json.loads((model_dir / "model.json").read_text())
    del meta["stacker"]
    (model_dir / "model.json").write_text(json.dumps(meta))
    assert cli_main(["ava", "calibrate", str(model_dir), "--data", str(data), "--device", "cpu"]) == 0
    written = json.loads((model_dir / "model.json").read_text())
    assert written["stacker"]["recipe"]["rows"] == 100 and "threshold" not in written
    assert set(written["thresholds"]) == {"max", "mean"} and all(0 < v < 1 for v in written["thresholds"].values())
    model = OnnxAvaModel.from_dir(model_dir, device="cpu")
    assert model.stacker == Stacker.from_dict(written["stacker"])
    assert model.threshold == written["thresholds"]["max"]
    assert model.with_refs("mean").threshold == written["thresholds"]["mean"]


def test_as2_sentences_construction_and_off_topic_negatives(tmp_path):
    lines = [
        {"question": "q1", "candidates": [{"sentence": "a", "label": 0}, {"sentence": "b", "label": 1}]},
        {"question": "q2", "candidates": [{"sentence": "x", "label": 0}]},
        {"question": "q3", "candidates": [{"sentence": "y", "label": 1}, {"sentence": "z", "label": 0}]},
    ]
    t = load_as2_as_ava(_as2_file(tmp_path, lines), construction="sentences")
    # the AS2 rows themselves: every sentence of a question with a correct one, with its label
    assert sorted(zip(t.questions, t.candidates, t.labels.tolist())) == [
        ("q1", "a", 0), ("q1", "b", 1), ("q3", "y", 1), ("q3", "z", 0)]
    assert t.dropped == {"no_correct_sentence": 1}
    with_off = load_as2_as_ava(_as2_file(tmp_path, lines), construction="sentences", off_topic=2, seed=1)
    extra = [(q, c, y) for q, c, y in zip(with_off.questions, with_off.candidates, with_off.labels.tolist())
             if (q, c, y) not in set(zip(t.questions, t.candidates, t.labels.tolist()))]
    own = {"q1": {"a", "b"}, "q3": {"y", "z"}}
    assert len(extra) == 4 and all(y == 0 and c not in own[q] for q, c, y in extra)
    capped = load_as2_as_ava(_as2_file(tmp_path, lines), construction="sentences", max_pairs_per_question=1,
                             per_label=True)
    assert sorted(capped.labels.tolist()) == [0, 0, 1, 1]
