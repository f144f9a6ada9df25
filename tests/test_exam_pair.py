"""The ONNX sequence-pair solver, on a tiny ONNX graph built here with the ``onnx`` package.

The graph scores a (premise, hypothesis) row as logits [0, sum of per-token weights over the real
premise tokens (token type 0)]; index 1 is "entailment". Token weights favour the word "carbon".
"""
import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
tokenizers = pytest.importorskip("tokenizers")

from onnx import TensorProto, helper  # noqa: E402

from qascore.exam.records import ExamQuestion  # noqa: E402
from qascore.models import bundled_path  # noqa: E402

TOKENIZER = bundled_path("minilm", "tokenizer.json")


def token_weights():
    tok = tokenizers.Tokenizer.from_file(str(TOKENIZER))
    weights = np.full(tok.get_vocab_size(), -0.3, dtype=np.float32)
    weights[tok.token_to_id("carbon")] = 6.0
    return weights


@pytest.fixture(scope="module")
def pair_model(tmp_path_factory):
    weights = token_weights()
    nodes = [
        helper.make_node("Gather", ["W", "input_ids"], ["w"]),
        helper.make_node("Sub", ["attention_mask", "token_type_ids"], ["premise"]),
        helper.make_node("Cast", ["premise"], ["maskf"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["w", "maskf"], ["wm"]),
        helper.make_node("ReduceSum", ["wm", "axis"], ["entail"], keepdims=1),
        helper.make_node("Mul", ["entail", "zero"], ["other"]),
        helper.make_node("Concat", ["other", "entail"], ["logits"], axis=1),
    ]
    graph = helper.make_graph(
        nodes, "tiny_pair",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["b", "l"]),
         helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["b", "l"]),
         helper.make_tensor_value_info("token_type_ids", TensorProto.INT64, ["b", "l"])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["b", 2])],
        initializer=[helper.make_tensor("W", TensorProto.FLOAT, [len(weights)], weights),
                     helper.make_tensor("axis", TensorProto.INT64, [1], [1]),
                     helper.make_tensor("zero", TensorProto.FLOAT, [], [0.0])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    path = tmp_path_factory.mktemp("onnx") / "tiny_pair.onnx"
    onnx.save(model, str(path))
    return path


def reference_support(premises, hypotheses):
    tok = tokenizers.Tokenizer.from_file(str(TOKENIZER))
    tok.no_padding()
    tok.no_truncation()
    weights = token_weights().astype(np.float64)
    out = []
    for p, h in zip(premises, hypotheses):
        enc = tok.encode(p, h)
        logit = sum(weights[i] for i, t in zip(enc.ids, enc.type_ids) if t == 0)
        out.append(1.0 / (1.0 + np.exp(-logit)))  # softmax of [0, logit], index 1
    return np.array(out)


@pytest.fixture(scope="module")
def solver(pair_model):
    from qascore.exam.solvers.pair import PairModelSolver

    return PairModelSolver(pair_model, TOKENIZER, entailment_index=1, threshold=0.5, device="cpu")


def test_score_pairs_matches_reference(solver):
    premises = ["Plants absorb carbon dioxide.", "", "A much longer premise about carbon and oxygen in the air we breathe."]
    hypotheses = ["What gas? carbon dioxide", "short", "x"]
    np.testing.assert_allclose(solver.score_pairs(premises, hypotheses), reference_support(premises, hypotheses),
                               rtol=1e-5)


def test_eliminates_unsupported_assertions(solver):
    q = ExamQuestion("q", "1", "What gas do plants absorb?", {"a": "oxygen", "b": "carbon dioxide", "c": "argon"}, "b")
    # choice b's best sentence holds "carbon"; argon has no support, so its premise is the sentence
    # that best matches the question, which the toy model does not find entailing
    arts = [["Plants absorb gases through their leaves. Carbon dioxide is the one they take in. Animals breathe oxygen."],
            ["Animals breathe oxygen. Argon is a noble gas."], []]
    got = solver.solve(arts, [[q], [q], [q]])
    assert got[0][0].label == "b"
    assert got[1][0].label is None  # every assertion's support is below the threshold
    assert got[2][0].label is None  # empty article: nothing retrieved, nothing scored
    assert solver.settings()["entailment_index"] == 1


def test_bad_models_and_questions(solver, pair_model, tmp_path):
    from qascore.exam.solvers.pair import PairModelSolver, support_probability

    with pytest.raises(ValueError, match="threshold"):
        PairModelSolver(pair_model, TOKENIZER, threshold=1.5)
    free = ExamQuestion("q", "1", "Why?", gold_answers=("because",))
    with pytest.raises(ValueError, match="needs answer choices"):
        solver.solve([["text."]], [[free]])
    assert support_probability(np.array([[0.0]]), -1)[0] == pytest.approx(0.5)
    with pytest.raises(ValueError, match="logits"):
        support_probability(np.zeros((2, 2, 2)), 0)
    missing = tmp_path / "nope.onnx"
    with pytest.raises(Exception, match="nope.onnx"):
        PairModelSolver(missing, TOKENIZER)
