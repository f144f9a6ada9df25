"""qascore.runtime.dequantize: the float graph a CUDA session runs for a dynamic-int8 model.

Oracle: onnxruntime's own ``quantize_dynamic`` makes the int8 model from a small float graph
(embedding layer norm, attention, feed-forward MatMuls, as in MiniLM); the weights are then
dequantised here in numpy by the textbook rule ``(q - zero_point) * scale`` from the initializers
``quantize_dynamic`` writes, put back into the *original* float graph, and that graph's output is
what the dequantised graph must reproduce.
"""
import warnings

import numpy as np
import pytest

ort = pytest.importorskip("onnxruntime")
onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from onnxruntime.quantization import QuantType, quantize_dynamic  # noqa: E402

from qascore.runtime import OnnxSession, session as session_module  # noqa: E402
from qascore.runtime.dequantize import (  # noqa: E402
    DequantizeError, cuda_graph_bytes, dequantize_model, dequantized_model_bytes, is_dynamic_int8)

H, HEADS, VOCAB, POSITIONS, FFN = 8, 2, 30, 16, 12


def _float_graph(rng) -> onnx.ModelProto:
    weights = {
        "word": rng.normal(size=(VOCAB, H)), "position": rng.normal(size=(POSITIONS, H)),
        "segment": rng.normal(size=(2, H)), "gamma": rng.uniform(0.5, 1.5, H), "beta": rng.normal(size=H) * 0.1,
        "qkv": rng.normal(size=(H, 3 * H)) * 0.5, "qkv_bias": rng.normal(size=3 * H) * 0.1,
        "w1": rng.normal(size=(H, FFN)) * 0.5, "w2": rng.normal(size=(FFN, 1)) * 0.5,
    }
    inits = [numpy_helper.from_array(np.asarray(v, np.float32), k) for k, v in weights.items()]
    nodes = [
        helper.make_node("EmbedLayerNormalization", ["ids", "segments", "word", "position", "segment", "gamma", "beta", "mask"],
                         ["embedded", "mask_index"], domain="com.microsoft", epsilon=1e-5),
        helper.make_node("Attention", ["embedded", "qkv", "qkv_bias", "mask_index"], ["attended"], domain="com.microsoft",
                         num_heads=HEADS),
        helper.make_node("MatMul", ["attended", "w1"], ["hidden"]),
        helper.make_node("Relu", ["hidden"], ["activated"]),
        helper.make_node("MatMul", ["activated", "w2"], ["logits"]),
    ]
    ints = lambda name: helper.make_tensor_value_info(name, TensorProto.INT32, ["batch", "length"])  # noqa: E731
    graph = helper.make_graph(nodes, "tiny-bert", [ints("ids"), ints("segments"), ints("mask")],
                              [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", "length", 1])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)])
    model.ir_version = 8
    return model


def _feeds(rng, batch=3, length=7):
    mask = np.ones((batch, length), np.int32)
    mask[0, 5:] = 0
    return {"ids": rng.integers(0, VOCAB, (batch, length)).astype(np.int32),
            "segments": rng.integers(0, 2, (batch, length)).astype(np.int32), "mask": mask}


def _run(model_or_bytes, feeds):
    data = model_or_bytes if isinstance(model_or_bytes, bytes) else model_or_bytes.SerializeToString()
    return ort.InferenceSession(data, providers=["CPUExecutionProvider"]).run(None, feeds)[0]


def _textbook_dequantised(float_model, int8_model):
    """The float graph with each weight replaced by (q - zero_point) * scale of the int8 model."""
    stored = {init.name: numpy_helper.to_array(init) for init in int8_model.graph.initializer}
    out = onnx.ModelProto.FromString(float_model.SerializeToString())
    for init in out.graph.initializer:
        if f"{init.name}_quantized" in stored:
            q = stored[f"{init.name}_quantized"].astype(np.float64)
            w = (q - stored[f"{init.name}_zero_point"]) * stored[f"{init.name}_scale"]
            init.CopyFrom(numpy_helper.from_array(w.astype(np.float32), init.name))
    return out


@pytest.fixture(params=[True, False], ids=["per-channel", "per-tensor"])
def models(request, tmp_path):
    rng = np.random.default_rng(7)
    float_model = _float_graph(rng)
    onnx.save(float_model, tmp_path / "float.onnx")
    quantize_dynamic(str(tmp_path / "float.onnx"), str(tmp_path / "int8.onnx"), weight_type=QuantType.QInt8,
                     per_channel=request.param, extra_options={"DefaultTensorType": TensorProto.FLOAT})
    int8_model = onnx.load(tmp_path / "int8.onnx")
    ops = {node.op_type for node in int8_model.graph.node}
    assert {"QEmbedLayerNormalization", "QAttention", "MatMulInteger", "DynamicQuantizeLinear"} <= ops
    return float_model, int8_model, tmp_path / "int8.onnx"


def test_dequantised_graph_is_the_float_graph_of_the_int8_weights(models):
    float_model, int8_model, _ = models
    feeds = _feeds(np.random.default_rng(1))
    got = _run(dequantize_model(int8_model), feeds)
    want = _run(_textbook_dequantised(float_model, int8_model), feeds)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    # and it differs from the int8 graph only by activation rounding
    assert np.abs(got - _run(int8_model, feeds)).max() < 0.25 * np.abs(want).max()


def test_dequantised_graph_holds_no_integer_operators(models):
    _, int8_model, path = models
    assert is_dynamic_int8(int8_model)
    model = onnx.ModelProto.FromString(dequantized_model_bytes(path))
    assert not is_dynamic_int8(model)
    assert {"EmbedLayerNormalization", "Attention", "MatMul"} <= {node.op_type for node in model.graph.node}
    assert not any(init.name.endswith("_quantized") for init in model.graph.initializer)


def test_float_model_is_left_alone(models, tmp_path):
    float_model, _, _ = models
    onnx.save(float_model, tmp_path / "plain.onnx")
    assert dequantized_model_bytes(tmp_path / "plain.onnx") is None


def test_unknown_quantised_pattern_is_an_error(models):
    _, int8_model, _ = models
    broken = onnx.ModelProto.FromString(int8_model.SerializeToString())
    for node in broken.graph.node:
        if node.op_type == "Cast":  # MatMulInteger's output no longer goes through the Cast rescale
            node.op_type = "Identity"
            del node.attribute[:]
    with pytest.raises(DequantizeError, match="is not read by one Cast"):
        dequantize_model(broken)


_REAL_SESSION = ort.InferenceSession


class _CudaLikeSession:
    """Claims the CUDA provider it was offered and runs on the CPU: lets the CUDA path run here."""

    def __init__(self, source, sess_options=None, providers=None):
        self.source = source
        self._real = _REAL_SESSION(source, sess_options=sess_options, providers=["CPUExecutionProvider"])
        self._providers = list(providers)

    def get_providers(self):
        return self._providers

    def __getattr__(self, name):
        return getattr(self._real, name)


def test_cuda_session_runs_the_dequantised_graph(models, monkeypatch):
    float_model, int8_model, path = models
    monkeypatch.setattr(ort, "get_available_providers", lambda: ["CUDAExecutionProvider", "CPUExecutionProvider"])
    monkeypatch.setattr(ort, "InferenceSession", _CudaLikeSession)
    monkeypatch.setattr(session_module.OnnxSession, "_run_bound", lambda self, arrays, names: self._session.run(names, arrays))
    s = OnnxSession(path, device="cuda")
    assert s.device == "cuda" and s.graph == "dequantised" and "graph:dequantised" in s.describe()
    feeds = _feeds(np.random.default_rng(2))
    np.testing.assert_allclose(s.run(feeds)[0], _run(_textbook_dequantised(float_model, int8_model), feeds), rtol=1e-5, atol=1e-5)
    assert OnnxSession(path, device="cuda", dequantize_on_cuda=False).graph == "as-stored"


def test_float16_graph_keeps_float32_inputs_and_outputs(models, tmp_path):
    float_model, int8_model, path = models
    data, what = cuda_graph_bytes(path, float16=True)
    assert what == "dequantised-float16"
    model = onnx.ModelProto.FromString(data)
    assert {init.data_type for init in model.graph.initializer if init.name.endswith("_dequantised")} == {TensorProto.FLOAT16}
    assert model.graph.output[0].type.tensor_type.elem_type == TensorProto.FLOAT
    feeds = _feeds(np.random.default_rng(4))
    want = _run(_textbook_dequantised(float_model, int8_model), feeds)
    got = _run(data, feeds)  # the CPU provider runs it too, through casts
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=0, atol=2e-2 * np.abs(want).max())
    onnx.save(float_model, tmp_path / "plain.onnx")
    assert cuda_graph_bytes(tmp_path / "plain.onnx", float16=True)[1] == "float16"
    assert cuda_graph_bytes(tmp_path / "plain.onnx") == (None, "as-stored")


def test_cuda_session_float16_is_opt_in(models, monkeypatch):
    _, _, path = models
    monkeypatch.setattr(ort, "get_available_providers", lambda: ["CUDAExecutionProvider", "CPUExecutionProvider"])
    monkeypatch.setattr(ort, "InferenceSession", _CudaLikeSession)
    s = OnnxSession(path, device="cuda", cuda_float16=True)
    assert s.graph == "dequantised-float16" and "graph:dequantised-float16" in s.describe()
    assert OnnxSession(path, device="cuda").graph == "dequantised"


def test_cpu_fallback_goes_back_to_the_int8_graph(models, monkeypatch):
    _, int8_model, path = models

    class FallsBack(_CudaLikeSession):
        def get_providers(self):
            return ["CPUExecutionProvider"]

    monkeypatch.setattr(ort, "get_available_providers", lambda: ["CUDAExecutionProvider", "CPUExecutionProvider"])
    monkeypatch.setattr(ort, "InferenceSession", FallsBack)
    with pytest.warns(RuntimeWarning, match="fell back to the CPU"):
        s = OnnxSession(path, device="auto")
    assert s.device == "cpu" and s.graph == "as-stored" and s._session.source == str(path)
    feeds = _feeds(np.random.default_rng(3))
    np.testing.assert_array_equal(s.run(feeds)[0], _run(int8_model, feeds))


def test_cpu_session_never_dequantises(models):
    _, _, path = models
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert OnnxSession(path, device="cpu").graph == "as-stored"


def test_shipped_ava_model_dequantises_completely():
    from qascore.judges.onnx import default_model_dir

    model = onnx.ModelProto.FromString(dequantized_model_bytes(default_model_dir() / "model.onnx"))
    ops = {node.op_type for node in model.graph.node}
    assert not is_dynamic_int8(model) and {"Attention", "EmbedLayerNormalization", "MatMul"} <= ops
