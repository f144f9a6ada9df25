"""Freeze the activation ranges of a dynamically quantised AVA model, so a row's probability no
longer depends on the rows batched with it.

onnxruntime's dynamic int8 format quantises every activation with a scale and zero point computed
over the whole batch tensor (DynamicQuantizeLinear), padding included: a row's logit moves with its
batch mates (up to ~0.9 logit on EVOUNA rows). This script records, per quantised activation, the
range each calibration row spans when it is run alone, fixes one range per activation, and
replaces every DynamicQuantizeLinear by a QuantizeLinear with that constant scale and zero point
(each integer matrix product then becomes one MatMulIntegerToFloat, as onnxruntime fuses it for the
dynamic graph).
Integer matrix products are exact and everything else is per token, so the frozen graph gives a
row the same logit in any batch; it keeps the int8 weights and the int8 kernels' speed.

    PYTHONPATH=src python onnx_export/static_activations.py MODEL_DIR --data NQ.json \
        [--range max|p99.99|p99.9|choose] [--out DIR]

Calibration rows are EVOUNA's calibration part (train split re-split by question, the part the
stacker and threshold are fitted on; never dev), or for a reader (the EXAM ``qa`` solver's
``A0(q,t)`` network) the sentences of a training answer-sentence-selection file.
``--range choose`` (default) picks, among the candidate rules, the one whose frozen logits are
closest to the float graph's on those rows.
Afterwards refit the stacker and thresholds: ``qascore ava calibrate MODEL_DIR --data NQ.json``.
Needs ``qascore[train]`` (onnx).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

RULES = ("max", "p99.99", "p99.9")


def quantised_activations(model) -> list:
    """The DynamicQuantizeLinear nodes of a graph, in graph order."""
    return [node for node in model.graph.node if node.op_type == "DynamicQuantizeLinear"]


def with_activation_outputs(model):
    """A copy of ``model`` that also outputs every quantised activation (the DQL inputs)."""
    import onnx

    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    for node in quantised_activations(copy):
        copy.graph.output.append(onnx.helper.make_tensor_value_info(node.input[0], onnx.TensorProto.FLOAT, None))
    return copy


def row_ranges(model_dir: Path, q: list, r: list, t: list, *, n_threads: int) -> dict[str, np.ndarray]:
    """Per quantised activation, the (min, max) each row spans when it runs alone: (rows, 2)."""
    import onnx
    import onnxruntime as ort

    from qascore.judges.onnx import OnnxAvaModel

    model = OnnxAvaModel.from_dir(model_dir, device="cpu", n_threads=n_threads, stacker=None)
    proto = onnx.load(str(model.model_path))
    names = [node.input[0] for node in quantised_activations(proto)]
    options = ort.SessionOptions()
    options.intra_op_num_threads = n_threads
    session = ort.InferenceSession(with_activation_outputs(proto).SerializeToString(), sess_options=options,
                                   providers=["CPUExecutionProvider"])
    ranges = {name: np.empty((len(q), 2), dtype=np.float64) for name in names}
    row = 0

    def run(feeds, output_names):
        nonlocal row
        outputs = session.run(["logits", *names], dict(feeds))
        for name, value in zip(names, outputs[1:]):
            ranges[name][row] = (float(value.min()), float(value.max()))
        row += 1
        return outputs[:1]

    model.session.run = run  # type: ignore[method-assign]
    model.batch_size = 1  # alone: no padding, no batch mates
    for i in range(len(q)):
        model.row_logits([q[i]], [r[i]], [t[i]])
    return ranges


def frozen_range(per_row: np.ndarray, rule: str) -> tuple[float, float]:
    """One (min, max) from the per-row ranges: the extremes, or a percentile of them."""
    if rule == "max":
        return float(per_row[:, 0].min()), float(per_row[:, 1].max())
    pct = float(rule[1:])
    return float(np.percentile(per_row[:, 0], 100 - pct)), float(np.percentile(per_row[:, 1], pct))


def scale_and_zero_point(lo: float, hi: float) -> tuple[float, int]:
    """DynamicQuantizeLinear's uint8 formula for a fixed range (the range always holds 0)."""
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    scale = (hi - lo) / 255.0 if hi > lo else 1.0
    return scale, int(np.clip(np.rint(-lo / scale), 0, 255))


def freeze(model, ranges: dict[str, tuple[float, float]]):
    """A copy of ``model`` with each DynamicQuantizeLinear replaced by a QuantizeLinear whose scale
    and zero point are constants under the names the DQL's outputs had."""
    import onnx
    from onnx import numpy_helper

    frozen = onnx.ModelProto()
    frozen.CopyFrom(model)
    graph = frozen.graph
    nodes = list(graph.node)
    del graph.node[:]
    for node in nodes:
        if node.op_type != "DynamicQuantizeLinear":
            graph.node.append(node)
            continue
        x, (y, y_scale, y_zero_point) = node.input[0], node.output
        scale, zero_point = scale_and_zero_point(*ranges[x])
        graph.initializer.append(numpy_helper.from_array(np.array(scale, dtype=np.float32), y_scale))
        graph.initializer.append(numpy_helper.from_array(np.array(zero_point, dtype=np.uint8), y_zero_point))
        graph.node.append(onnx.helper.make_node("QuantizeLinear", [x, y_scale, y_zero_point], [y],
                                                name=node.name + "_static"))
    fuse_integer_matmuls(frozen)
    return frozen


def fuse_integer_matmuls(model) -> int:
    """Rewrite each MatMulInteger -> Cast -> Mul(a_scale * b_scale) chain as one
    ``com.microsoft.MatMulIntegerToFloat`` (onnxruntime fuses that chain itself only when a
    DynamicQuantizeLinear feeds it); returns how many were fused."""
    import onnx

    graph = model.graph
    producer = {out: node for node in graph.node for out in node.output}
    consumers: dict = {}
    for node in graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)
    drop, fused = set(), {}
    for node in graph.node:
        if node.op_type != "MatMulInteger" or len(consumers.get(node.output[0], [])) != 1:
            continue
        cast = consumers[node.output[0]][0]
        if cast.op_type != "Cast" or len(consumers.get(cast.output[0], [])) != 1:
            continue
        mul = consumers[cast.output[0]][0]
        scales = producer.get(next((i for i in mul.input if i != cast.output[0]), ""))
        if mul.op_type != "Mul" or scales is None or scales.op_type != "Mul" \
                or len(consumers[scales.output[0]]) != 1:
            continue
        a, b, a_zero_point, b_zero_point = (list(node.input) + ["", ""])[:4]
        a_scale, b_scale = scales.input
        fused[id(node)] = onnx.helper.make_node(
            "MatMulIntegerToFloat", [a, b, a_scale, b_scale, a_zero_point, b_zero_point], [mul.output[0]],
            name=node.name + "_to_float", domain="com.microsoft")
        drop.update({id(cast), id(mul), id(scales)})
    nodes = list(graph.node)
    del graph.node[:]
    graph.node.extend(fused.get(id(n), n) for n in nodes if id(n) not in drop)
    return len(fused)


def float_logits(model_dir: Path, q, r, t, *, n_threads: int) -> np.ndarray:
    """The float graph of the int8 weights (activations not rounded): the rule's yardstick."""
    import onnxruntime as ort

    from qascore.judges.onnx import OnnxAvaModel
    from qascore.runtime.dequantize import cuda_graph_bytes

    model = OnnxAvaModel.from_dir(model_dir, device="cpu", n_threads=n_threads, stacker=None)
    graph, _ = cuda_graph_bytes(model.model_path, dequantize=True, float16=False)
    options = ort.SessionOptions()
    options.intra_op_num_threads = n_threads
    model.session._session = ort.InferenceSession(graph, sess_options=options, providers=["CPUExecutionProvider"])
    return model.row_logits(q, r, t)


def logits_of(model_dir: Path, proto, q, r, t, *, n_threads: int) -> np.ndarray:
    import onnxruntime as ort

    from qascore.judges.onnx import OnnxAvaModel

    model = OnnxAvaModel.from_dir(model_dir, device="cpu", n_threads=n_threads, stacker=None)
    options = ort.SessionOptions()
    options.intra_op_num_threads = n_threads
    model.session._session = ort.InferenceSession(proto.SerializeToString(), sess_options=options,
                                                  providers=["CPUExecutionProvider"])
    return model.row_logits(q, r, t)


def main(argv=None) -> int:
    import onnx

    from qascore.ava.data import calibration_split, load_as2_as_ava, load_evouna, split_by_question
    from qascore.judges.triples import expand_rows

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model_dir", type=Path)
    parser.add_argument("--data", required=True,
                        help="EVOUNA NQ.json (AVA models), or a training AS2 file (readers: TREC-QA .jsonl)")
    parser.add_argument("--range", default="choose", choices=("choose", *RULES))
    parser.add_argument("--out", type=Path, help="directory to write (default: model_dir, in place)")
    parser.add_argument("--n-jobs", type=int, default=1)
    args = parser.parse_args(argv)

    if str(args.data).endswith(".json"):
        train, _ = split_by_question(load_evouna(args.data))
        _, cal = calibration_split(train)
        described = "EVOUNA NQ calibration part (train split re-split by question, seed 7, 10%)"
    else:  # a reader's (question, sentence) rows: every sentence of a training AS2 file, 20 a question
        cal = load_as2_as_ava(args.data, construction="one_reference", seed=13, max_candidates=20)
        described = f"{Path(args.data).name}: up to 20 sentences a question (load_as2_as_ava one_reference, seed 13)"
    q, r, t, _ = expand_rows(cal.questions, cal.references, cal.candidates)
    proto = onnx.load(str(args.model_dir / "model.onnx"))
    if not quantised_activations(proto):
        print(f"{args.model_dir}: no DynamicQuantizeLinear left; nothing to freeze", file=sys.stderr)
        return 2
    per_row = row_ranges(args.model_dir, q, r, t, n_threads=args.n_jobs)
    reference = float_logits(args.model_dir, q, r, t, n_threads=args.n_jobs)
    report = {}
    for rule in RULES if args.range == "choose" else (args.range,):
        frozen = freeze(proto, {name: frozen_range(v, rule) for name, v in per_row.items()})
        logits = logits_of(args.model_dir, frozen, q, r, t, n_threads=args.n_jobs)
        delta = np.abs(logits - reference)
        report[rule] = {"mean_abs_delta_logit": float(delta.mean()), "max_abs_delta_logit": float(delta.max()),
                        "sign_agreement": float(np.mean((logits >= 0) == (reference >= 0)))}
        print(f"{rule}: {report[rule]}")
    rule = min(report, key=lambda k: report[k]["mean_abs_delta_logit"])
    frozen = freeze(proto, {name: frozen_range(v, rule) for name, v in per_row.items()})
    out = args.out or args.model_dir
    out.mkdir(parents=True, exist_ok=True)
    onnx.save(frozen, str(out / "model.onnx"))
    meta_path = args.model_dir / "model.json"
    meta = json.loads(meta_path.read_text())
    meta["activation_ranges"] = {
        "command": "python onnx_export/static_activations.py " + " ".join(sys.argv[1:] if argv is None else argv),
        "rows": len(q), "data": described,
        "rule": rule, "candidates": report,
    }
    (out / "model.json").write_text(json.dumps(meta, indent=1) + "\n")
    print(f"rule {rule}; frozen graph -> {out / 'model.onnx'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
