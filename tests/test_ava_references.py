"""AVA's reference rules (max by default, the paper's mean as an option), repeated rows scored once,
and batch-invariant inference: a row's probability does not depend on its batch."""
from __future__ import annotations

import copy

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from qascore.ava import Ava, default_linear_model
from qascore.ava.data import load_evouna, split_by_question
from qascore.judges.triples import combine_by_owner, expand_rows, unique_rows

Q = ["who wrote hamlet", "capital of france", "who wrote hamlet"]
REFS = [["William Shakespeare", "Shakespeare", "the Bard"], ["Paris"], ["Dickens", "William Shakespeare"]]
T = ["It was William Shakespeare.", "Lyon", "Shakespeare wrote it"]


def test_combine_by_owner_max_and_mean():
    values, owner = np.array([0.2, 0.9, 0.4, 0.1]), np.array([0, 0, 2, 2])
    assert combine_by_owner(values, owner, 3, "max").tolist() == [0.9, 0.0, 0.4]
    assert combine_by_owner(values, owner, 3, "mean").tolist() == pytest.approx([0.55, 0.0, 0.25])
    with pytest.raises(ValueError, match="refs must be one of"):
        combine_by_owner(values, owner, 3, "min")


@given(st.lists(st.tuples(st.sampled_from("ab"), st.sampled_from("xyz"), st.sampled_from("uv")), max_size=40))
def test_unique_rows_rebuilds_every_row(rows):
    q, r, t = (list(col) for col in zip(*rows)) if rows else ([], [], [])
    first, inverse = unique_rows(q, r, t)
    assert len(set(rows)) == len(first)
    assert [(q[first[k]], r[first[k]], t[first[k]]) for k in inverse] == rows
    assert sorted(first.tolist()) == first.tolist()  # first occurrences, in order


def test_references_equal_after_normalisation_get_one_row_under_max_only():
    _, r, _, owner = expand_rows(["q"], [["Paris", "paris.", "The Paris", "Lyon"]], ["t"], distinct=True)
    assert r == ["Paris", "Lyon"] and owner.tolist() == [0, 0]
    assert expand_rows(["q"], [["Paris", "paris."]], ["t"])[1] == ["Paris", "paris."]


@pytest.mark.parametrize("refs", ["max", "mean"])
def test_linear_rule_combines_single_reference_scores(refs):
    model = default_linear_model(refs)
    p = model.predict_proba(Q, REFS, T)
    single = [[model.predict_proba([q], [r], [t])[0] for r in rs] for q, rs, t in zip(Q, REFS, T)]
    expected = [max(s) if refs == "max" else float(np.mean(s)) for s in single]
    np.testing.assert_allclose(p, expected, rtol=0, atol=1e-15)
    assert f"refs:{refs}" in model.signature() and model.threshold == model.thresholds[refs]


def test_max_is_default_and_goes_into_the_signature():
    assert "refs:max" in Ava("linear").signature()
    mean = Ava("linear", refs="mean")
    assert "refs:mean" in mean.signature() and mean.model.threshold == mean.model.thresholds["mean"]
    # a model object is put under the metric's rule
    assert Ava(default_linear_model("mean")).model.refs == "max"
    with pytest.raises(ValueError, match="refs must be one of"):
        Ava("linear", refs="any")


def test_right_answer_is_not_punished_for_other_aliases():
    q, t = ["who wrote hamlet"], ["William Shakespeare"]
    refs = [["William Shakespeare", "Bacon", "Marlowe", "Oxford"]]
    assert Ava("linear").score(q, refs, t)["label"].tolist() == [1]
    assert Ava("linear", refs="mean").score(q, refs, t)["probability"][0] < Ava("linear").score(q, refs, t)[
        "probability"][0]


def test_evouna_aliases_split_on_slash(shared_data):
    whole = load_evouna(shared_data / "ava" / "evouna" / "NQ.json")
    aliases = load_evouna(shared_data / "ava" / "evouna" / "NQ.json", aliases=True)
    assert len(whole) == len(aliases) and aliases.labels.tolist() == whole.labels.tolist()
    assert all(len(r) == 1 for r in whole.references)
    assert max(len(r) for r in aliases.references) > 3
    i = next(k for k, r in enumerate(whole.references) if "/" in r[0])
    assert "/".join(aliases.references[i]).replace(" ", "") == whole.references[i][0].replace(" ", "")


# --- the shipped ONNX model: batch invariance --------------------------------------------------


@pytest.fixture(scope="module")
def onnx_model():
    pytest.importorskip("onnxruntime")
    pytest.importorskip("tokenizers")
    from qascore.judges.onnx import load_default_network

    return load_default_network(device="cpu", n_threads=1)


@pytest.fixture(scope="module")
def rows(shared_data):
    _, dev = split_by_question(load_evouna(shared_data / "ava" / "evouna" / "NQ.json", aliases=True))
    q, r, t, _ = expand_rows(dev.questions, dev.references, dev.candidates)
    pick = np.random.default_rng(5).choice(len(q), 24, replace=False)
    return [q[i] for i in pick], [r[i] for i in pick], [t[i] for i in pick]


def test_a_rows_probability_does_not_depend_on_its_batch(onnx_model, rows):
    q, r, t = rows
    alone = np.array([onnx_model.row_proba([q[i]], [r[i]], [t[i]])[0] for i in range(len(q))])
    rng = np.random.default_rng(0)
    worst = 0.0
    batch_size = onnx_model.batch_size
    try:
        for size in range(1, len(q) + 1):
            onnx_model.batch_size = size
            order = rng.permutation(len(q))
            batched = onnx_model.row_proba([q[i] for i in order], [r[i] for i in order], [t[i] for i in order])
            worst = max(worst, float(np.abs(batched - alone[order]).max()))
    finally:
        onnx_model.batch_size = batch_size
    assert worst <= 1e-5


def test_onnx_rule_and_repeated_rows(onnx_model, rows):
    q, r, t = rows
    single = onnx_model.row_proba(q, r, t)
    # the same rows twice, and as one triple with all references: max and mean of the singles
    np.testing.assert_allclose(onnx_model.row_proba(q + q, r + r, t + t), np.concatenate([single, single]),
                               atol=1e-6)
    refs = [r[:6]]
    p_rows = onnx_model.row_proba([q[0]] * 6, r[:6], [t[0]] * 6)
    assert onnx_model.with_refs("mean").predict_proba(q[:1], refs, t[:1])[0] == pytest.approx(p_rows.mean(), abs=1e-6)
    distinct = expand_rows(q[:1], refs, t[:1], distinct=True)[1]
    expected = max(p for p, ref in zip(p_rows, r[:6]) if ref in distinct)
    full = copy.copy(onnx_model)
    full.early_stop = False
    assert full.predict_proba(q[:1], refs, t[:1])[0] == pytest.approx(expected, abs=1e-6)


def test_early_stop_keeps_every_label(onnx_model, shared_data):
    _, dev = split_by_question(load_evouna(shared_data / "ava" / "evouna" / "NQ.json", aliases=True))
    many = [i for i, refs in enumerate(dev.references) if len(refs) >= 3][:40]
    q, r, t = ([xs[i] for i in many] for xs in (dev.questions, dev.references, dev.candidates))
    full = copy.copy(onnx_model)
    full.early_stop = False
    p_full, p_stop = full.predict_proba(q, r, t), onnx_model.predict_proba(q, r, t)
    th = onnx_model.threshold
    assert ((p_full >= th) == (p_stop >= th)).all()
    assert (p_stop <= p_full + 1e-6).all()
    assert (np.isclose(p_stop, p_full, rtol=0, atol=1e-6) | (p_stop >= th)).all()
    assert "early_stop:yes" in onnx_model.signature() and "early_stop:no" in full.signature()


def test_rule_is_in_the_onnx_signature(onnx_model):
    assert "refs:max" in onnx_model.signature() and "refs:mean" in onnx_model.with_refs("mean").signature()


@pytest.mark.parametrize("field", ["questions", "references", "candidates"])
def test_onnx_lone_surrogate_names_the_row(onnx_model, field):
    batch = {"questions": ["q", "q"], "references": [["r"], ["r", "ok"]], "candidates": ["t", "t"]}
    if field == "references":
        batch[field][1][1] = "x\ud800"
        where = r"references\[1\]\[1\]"
    else:
        batch[field][1] = "x\ud800"
        where = rf"{field}\[1\]"
    with pytest.raises(ValueError, match=where + " is not valid Unicode: lone surrogate U\\+D800 at position 1"):
        onnx_model.predict_proba(batch["questions"], batch["references"], batch["candidates"])
