"""A float graph from a dynamically quantised one, for the GPU.

onnxruntime's int8 format (``quantize_dynamic``: DynamicQuantizeLinear, or a QuantizeLinear with
fixed scales, feeding MatMulInteger / MatMulIntegerToFloat, QAttention and QEmbedLayerNormalization)
is a CPU format: on the CUDA provider most of those operators fall back to the CPU and the model
runs about 45x slower than the same network in fp32 (docs/ava.md). Shipping a second, float copy of
each model would triple the package, so a CUDA session rebuilds the float graph from the int8 one
instead: every quantised weight is dequantised, ``(q - zero_point) * scale``, and each quantised
operator is replaced by its float counterpart (MatMul, Attention, EmbedLayerNormalization) fed by
the float activation that DynamicQuantizeLinear used to quantise.

The result computes exactly the float network whose weights are the dequantised int8 ones: the
weights are those of the int8 model, the activations are no longer rounded to 8 bits. Scores
therefore differ slightly from the CPU int8 session (tests bound the difference).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

_QUANTISED_OPS = {"DynamicQuantizeLinear", "MatMulInteger", "MatMulIntegerToFloat", "QAttention",
                  "QEmbedLayerNormalization"}
# what turns a float activation into the int8 one a quantised operator reads: computed scales
# (dynamic), or scales fixed at export (onnx_export/static_activations.py)
_ACTIVATION_QUANTISERS = ("DynamicQuantizeLinear", "QuantizeLinear")


class DequantizeError(ValueError):
    """The graph holds a quantised operator in a pattern this module does not know."""


def _onnx():
    try:
        import onnx
        from onnx import numpy_helper
    except ImportError as exc:  # pragma: no cover - depends on the extra installed
        raise ImportError(
            "dequantising an int8 model for CUDA needs the 'onnx' package (pip install 'qascore[gpu]')"
        ) from exc
    return onnx, numpy_helper


def is_dynamic_int8(model) -> bool:
    """Whether a ModelProto holds any of onnxruntime's dynamic-quantisation operators."""
    return any(node.op_type in _QUANTISED_OPS for node in model.graph.node)


class _Graph:
    """Producers, consumers and initializers of one graph, for pattern rewriting."""

    def __init__(self, model) -> None:
        _, self._numpy_helper = _onnx()
        self.graph = model.graph
        self.initializers = {init.name: init for init in self.graph.initializer}
        self.producer = {out: node for node in self.graph.node for out in node.output}
        self.consumers: dict[str, list] = {}
        for node in self.graph.node:
            for name in node.input:
                self.consumers.setdefault(name, []).append(node)
        self.removed: set[int] = set()
        self.added: list = []
        self.new_initializers: dict = {}  # name -> TensorProto, each dequantised weight once

    def array(self, name: str) -> np.ndarray:
        if name not in self.initializers:
            raise DequantizeError(f"expected a constant weight, got the computed tensor {name!r}")
        return self._numpy_helper.to_array(self.initializers[name])

    def dequantised(self, q_name: str, scale_name: str, zero_point_name: str) -> str:
        """Add the float initializer ``(q - zero_point) * scale`` (per tensor or per column);
        a weight shared by several operators (a2's peer attention runs twice) is added once."""
        name = f"{q_name}_dequantised"
        if name in self.new_initializers:
            return name
        q = self.array(q_name).astype(np.float32)
        zero_point = self.array(zero_point_name).astype(np.float32) if zero_point_name else np.float32(0)
        weight = ((q - zero_point) * self.array(scale_name).astype(np.float32)).astype(np.float32)
        self.new_initializers[name] = self._numpy_helper.from_array(weight, name)
        return name

    def only_consumer(self, tensor: str, op_type: str, owner):
        users = self.consumers.get(tensor, [])
        if len(users) != 1 or users[0].op_type != op_type:
            raise DequantizeError(
                f"{owner.op_type} node {owner.name!r}: output {tensor!r} is not read by one {op_type}"
            )
        return users[0]

    def float_input(self, quantised: str, owner) -> str:
        """The float tensor that a (Dynamic)QuantizeLinear turned into ``quantised``."""
        source = self.producer.get(quantised)
        if source is None or source.op_type not in _ACTIVATION_QUANTISERS:
            raise DequantizeError(
                f"{owner.op_type} node {owner.name!r}: input {quantised!r} does not come from "
                f"{' or '.join(_ACTIVATION_QUANTISERS)}"
            )
        return source.input[0]

    def remove(self, *nodes) -> None:
        self.removed.update(id(node) for node in nodes)


def _rewrite_matmul_integer(g: _Graph, node, helper) -> None:
    # MatMulInteger(xq, Wq, x_zp, W_zp) -> Cast -> Mul(., x_scale * W_scale) is x @ deq(W)
    cast = g.only_consumer(node.output[0], "Cast", node)
    rescale = g.only_consumer(cast.output[0], "Mul", cast)
    scales_name = next(name for name in rescale.input if name != cast.output[0])
    scales = g.producer.get(scales_name)
    if scales is None or scales.op_type != "Mul":
        raise DequantizeError(
            f"MatMulInteger node {node.name!r}: its rescale factor {scales_name!r} is not a product of scales"
        )
    weight_scale = next((name for name in scales.input if name in g.initializers), None)
    if weight_scale is None:
        raise DequantizeError(f"MatMulInteger node {node.name!r}: no constant weight scale in {list(scales.input)}")
    zero_point = node.input[3] if len(node.input) > 3 else ""
    weight = g.dequantised(node.input[1], weight_scale, zero_point)
    g.added.append(
        helper.make_node(
            "MatMul", [g.float_input(node.input[0], node), weight], [rescale.output[0]], name=f"{node.output[0]}_float"
        )
    )
    g.remove(node, cast, rescale)
    if len(g.consumers.get(scales_name, [])) == 1:
        g.remove(scales)


def _rewrite_matmul_integer_to_float(g: _Graph, node, helper) -> None:
    # MatMulIntegerToFloat(xq, Wq, x_scale, W_scale, x_zp, W_zp[, bias]) is x @ deq(W) (+ bias)
    inputs = list(node.input) + [""] * (7 - len(node.input))
    weight = g.dequantised(inputs[1], inputs[3], inputs[5])
    product = node.output[0] if not inputs[6] else f"{node.output[0]}_unbiased"
    g.added.append(helper.make_node("MatMul", [g.float_input(inputs[0], node), weight], [product],
                                    name=f"{node.output[0]}_float"))
    if inputs[6]:
        g.added.append(helper.make_node("Add", [product, inputs[6]], [node.output[0]], name=f"{node.output[0]}_bias"))
    g.remove(node)


def _rewrite_qattention(g: _Graph, node, helper) -> None:
    # QAttention(xq, Wq, bias, x_scale, W_scale, mask_index, x_zp, W_zp, past)
    #   -> Attention(x, deq(W), bias, mask_index, past)
    inputs = list(node.input) + [""] * (9 - len(node.input))
    weight = g.dequantised(inputs[1], inputs[4], inputs[7])
    float_inputs = [g.float_input(inputs[0], node), weight, inputs[2], inputs[5], inputs[8]]
    while float_inputs and not float_inputs[-1]:
        float_inputs.pop()
    _replace_with_float_node(g, node, helper, "Attention", float_inputs)


def _replace_with_float_node(g: _Graph, node, helper, op_type: str, float_inputs: list) -> None:
    """Swap ``node`` for the float contrib operator ``op_type`` with the same outputs and attributes."""
    g.added.append(
        helper.make_node(
            op_type,
            float_inputs,
            list(node.output),
            name=f"{node.output[0]}_float",
            domain="com.microsoft",
            **{a.name: helper.get_attribute_value(a) for a in node.attribute},
        )
    )
    g.remove(node)


def _rewrite_qembed_layernorm(g: _Graph, node, helper) -> None:
    # inputs: ids, segment ids, 5 quantised tables (word, position, segment, gamma, beta), mask,
    # then their 5 scales and 5 zero points
    tables = [g.dequantised(node.input[2 + k], node.input[8 + k], node.input[13 + k]) for k in range(5)]
    float_inputs = [node.input[0], node.input[1], *tables, node.input[7]]
    _replace_with_float_node(g, node, helper, "EmbedLayerNormalization", float_inputs)


_REWRITES = {
    "MatMulInteger": _rewrite_matmul_integer,
    "MatMulIntegerToFloat": _rewrite_matmul_integer_to_float,
    "QAttention": _rewrite_qattention,
    "QEmbedLayerNormalization": _rewrite_qembed_layernorm,
}


def dequantize_model(model):
    """A new ModelProto: ``model`` (dynamic int8) with every quantised operator made float."""
    onnx, _ = _onnx()
    helper = onnx.helper
    model = onnx.ModelProto.FromString(model.SerializeToString())
    g = _Graph(model)
    for node in list(g.graph.node):
        if node.op_type in _REWRITES:
            _REWRITES[node.op_type](g, node, helper)
    # an activation quantiser is dead once nothing reads its outputs
    live_inputs = {name for node in g.graph.node if id(node) not in g.removed for name in node.input}
    live_inputs.update(name for node in g.added for name in node.input)
    for node in g.graph.node:
        if node.op_type in _ACTIVATION_QUANTISERS and not live_inputs.intersection(node.output):
            g.remove(node)
    kept = [node for node in g.graph.node if id(node) not in g.removed]
    leftover = sorted({node.op_type for node in kept if node.op_type in _QUANTISED_OPS})
    if leftover:
        raise DequantizeError(f"quantised operators left in an unknown pattern: {leftover}")
    # keep topological order: each float node takes the place of the last node it replaces
    order = {id(node): i for i, node in enumerate(g.graph.node)}
    position = {out: order[id(g.producer[out])] for node in g.added for out in node.output if out in g.producer}
    keyed = [(order[id(node)], 0, node) for node in kept]
    keyed += [(position.get(node.output[0], len(order)), 1, node) for node in g.added]
    keyed.sort(key=lambda item: (item[0], item[1]))
    del g.graph.node[:]
    g.graph.node.extend(node for _, _, node in keyed)
    used = {name for node in g.graph.node for name in node.input}
    initializers = [init for init in g.graph.initializer if init.name in used] + [
        init for name, init in g.new_initializers.items() if name in used
    ]
    del g.graph.initializer[:]
    g.graph.initializer.extend(initializers)
    onnx.checker.check_model(model)
    return model


def float16_model(model):
    """fp16 weights and activations with float32 inputs and outputs kept (onnxruntime's converter:
    layer norms and softmax stay fused, and its CUDA kernels accumulate them in float32)."""
    from onnxruntime.transformers.onnx_model import OnnxModel

    wrapped = OnnxModel(model)
    # onnx's own shape inference suffices here (the same graph, node for node, on our models)
    wrapped.convert_float_to_float16(keep_io_types=True, use_symbolic_shape_infer=False)
    return wrapped.model


def cuda_graph_bytes(path, *, dequantize: bool = True, float16: bool = False) -> tuple[bytes | None, str]:
    """The graph a CUDA session should run for the model at ``path``: ``(serialised model, what was
    done)``, or ``(None, "as-stored")`` when nothing needs changing. ``dequantize``: a dynamic-int8
    model becomes its float graph; ``float16``: the float graph is converted to fp16."""
    onnx, _ = _onnx()
    try:
        model = onnx.load(str(Path(path)))
    except Exception:  # not a loadable model: the session that opens it next names the file
        return None, "as-stored"
    steps = []
    if dequantize and is_dynamic_int8(model):
        model = dequantize_model(model)
        steps.append("dequantised")
    if float16 and not is_dynamic_int8(model):
        model = float16_model(model)
        steps.append("float16")
    if not steps:
        return None, "as-stored"
    return model.SerializeToString(), "-".join(steps)


def dequantized_model_bytes(path) -> bytes | None:
    """The serialised float graph of the int8 model at ``path``; None if it holds no int8 operators."""
    return cuda_graph_bytes(path)[0]
