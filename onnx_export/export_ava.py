"""Export an AVA checkpoint (or any BERT-style classifier built by qascore) to ONNX, optimise it,
quantise it to int8, and check parity against torch; writes a JSON report.

    PYTHONPATH=src python onnx_export/export_ava.py CHECKPOINT.pt --backbone DIR --out DIR \
        [--dev NQ.json] [--fp32-rows 400]

Steps: (1) torch.onnx.export, opset 17, dynamic batch and per-slot length, eager attention so the
optimiser can fuse it; (2) onnxruntime.transformers optimizer (BERT fusions: attention, layer
norm, GELU); (3) dynamic int8 quantisation, per channel, with DefaultTensorType FLOAT (needed
for fused graphs); (4) parity: fp32 ONNX vs torch max |delta logit| <= 1e-4 on dev rows, and
int8 label agreement with torch fp32 >= 99 % over the whole dev split. Needs ``qascore[train]``.
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path

import numpy as np

FP32_TOLERANCE = 1e-4
INT8_MIN_AGREEMENT = 0.99


def export_onnx(model, arch: str, path: Path, *, opset: int = 17) -> None:
    """torch -> ONNX with dynamic batch and per-slot sequence axes; output ``logits`` (batch,)."""
    import torch

    from qascore.judges.architectures import input_names

    names = input_names(arch)
    example = []
    for k in range(len(names) // 3):
        # every slot is fed at one common width (OnnxAvaModel pads them together)
        example += [torch.full((2, 9), 1000 + k, dtype=torch.long), torch.ones(2, 9, dtype=torch.long),
                    torch.zeros(2, 9, dtype=torch.long)]
    axes = {name: {0: "batch", 1: "length"} for name in names}
    axes["logits"] = {0: "batch"}
    model.eval()
    with torch.no_grad():
        torch.onnx.export(model, tuple(example), str(path), input_names=names, output_names=["logits"],
                          dynamic_axes=axes, opset_version=opset, do_constant_folding=True, dynamo=False)


def optimise(path_in: Path, path_out: Path, *, num_heads: int, hidden_size: int) -> dict:
    """onnxruntime transformer optimiser (BERT fusions); returns the fused operator counts."""
    from onnxruntime.transformers import optimizer

    opt = optimizer.optimize_model(str(path_in), model_type="bert", num_heads=num_heads, hidden_size=hidden_size,
                                   opt_level=1)
    opt.save_model_to_file(str(path_out))
    return {k: v for k, v in opt.get_fused_operator_statistics().items() if v}


def to_float16(path_in: Path, path_out: Path) -> None:
    """fp16 copy for GPUs (float32 inputs and ``logits`` kept): qascore.runtime.dequantize.float16_model."""
    import onnx

    from qascore.runtime.dequantize import float16_model

    onnx.save(float16_model(onnx.load(str(path_in))), str(path_out))


def quantise(path_in: Path, path_out: Path) -> None:
    """Dynamic int8 weights, per output channel; activations quantised at run time."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quantize_dynamic(str(path_in), str(path_out), weight_type=QuantType.QInt8, per_channel=True,
                     extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT})


def parity_report(model, arch, tokenizer, onnx_fp32: Path, onnx_int8: Path, dev, *, fp32_rows: int) -> dict:
    """Torch fp32 vs ONNX fp32 logits on the first ``fp32_rows`` dev rows and torch fp32 vs int8
    labels (threshold 0.5) over all dev rows."""
    from qascore.ava.training import encode_slots, expand_references, predict_logits_torch
    from qascore.judges.onnx import OnnxAvaModel

    q, r, t, _ = expand_references(dev)
    slots = encode_slots(tokenizer, arch, q, r, t, truncation="allow")
    # torch on the CPU is slow: torch is run on the first rows; the int8 model is compared with
    # torch there and with the fp32 ONNX model (itself within 1e-4 of torch) on every dev row
    head = np.arange(min(fp32_rows, len(q)))
    head_slots = [type(e)([e.ids[i] for i in head], [e.type_ids[i] for i in head], e.truncated[head]) for e in slots]
    torch_logits = predict_logits_torch(model, head_slots, tokenizer.pad_id, "cpu", batch_size=32)
    report = {"rows": len(q), "torch_rows": len(head)}
    logits = {}
    for name, path in (("fp32", onnx_fp32), ("int8", onnx_int8)):
        onnx_model = OnnxAvaModel(path, tokenizer_file=tokenizer.tokenizer_file, arch=arch, device="cpu")
        start = time.perf_counter()
        logits[name] = onnx_model.logits_of_slots(slots)
        report[f"{name}_seconds_all_rows"] = time.perf_counter() - start
        report[f"{name}_vs_torch_max_abs_delta_logit"] = float(np.abs(logits[name][head] - torch_logits).max())
        report[f"{name}_vs_torch_label_agreement"] = float(np.mean((logits[name][head] >= 0) == (torch_logits >= 0)))
        if dev.labels is not None:
            report[f"{name}_dev_accuracy_at_0.5"] = float(np.mean((logits[name] >= 0) == (dev.labels == 1)))
    report["int8_vs_fp32_label_agreement_all_rows"] = float(np.mean((logits["int8"] >= 0) == (logits["fp32"] >= 0)))
    report["fp32_ok"] = report["fp32_vs_torch_max_abs_delta_logit"] <= FP32_TOLERANCE
    report["int8_ok"] = (
        min(report["int8_vs_torch_label_agreement"], report["int8_vs_fp32_label_agreement_all_rows"])
        >= INT8_MIN_AGREEMENT
    )
    return report


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("checkpoint")
    parser.add_argument("--backbone", required=True, help="the backbone directory the checkpoint was trained from")
    parser.add_argument("--out", required=True)
    parser.add_argument("--dev", help="EVOUNA file; its dev split (seed 20240) is the parity set")
    parser.add_argument("--fp32-rows", type=int, default=300, help="dev rows on which torch runs")
    parser.add_argument(
        "--dev-rows", type=int, default=None, help="evenly spaced dev rows for the int8 check (default: all)"
    )
    parser.add_argument(
        "--reuse", action="store_true", help="keep model.fp32.onnx / model.onnx already in --out (parity only)"
    )
    parser.add_argument("--fp16", action="store_true", help="also write model.fp16.onnx, for the CUDA provider")
    args = parser.parse_args(argv)

    from qascore.ava.training import load_checkpoint
    from qascore.runtime.tokenize import TextTokenizer

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    model, saved = load_checkpoint(args.checkpoint, args.backbone)
    arch = saved["arch"]
    config = model.encoders[0].config
    raw, fused, int8 = out / "model.raw.onnx", out / "model.fp32.onnx", out / "model.onnx"
    fusions = None
    if not (args.reuse and fused.is_file() and int8.is_file()):
        export_onnx(model, arch, raw)
        fusions = optimise(raw, fused, num_heads=config.num_attention_heads, hidden_size=config.hidden_size)
        quantise(fused, int8)
        raw.unlink()
    if args.fp16:
        to_float16(fused, out / "model.fp16.onnx")
    shutil.copy(Path(args.backbone) / "tokenizer.json", out / "tokenizer.json")
    report = {
        "arch": arch,
        "checkpoint": str(args.checkpoint),
        "opset": 17,
        "fusions": fusions,
        "int8_bytes": int8.stat().st_size,
        "train_config": saved.get("train_config"),
        "meta": saved.get("meta"),
    }
    if args.dev:
        from qascore.ava.data import load_evouna, split_by_question

        _, dev = split_by_question(load_evouna(args.dev))
        if args.dev_rows is not None and args.dev_rows < len(dev):
            dev = dev.subset(np.linspace(0, len(dev) - 1, args.dev_rows).astype(np.int64))
        tokenizer = TextTokenizer(out / "tokenizer.json", max_length=saved["train_config"]["max_length"])
        report["parity"] = parity_report(model, arch, tokenizer, fused, int8, dev, fp32_rows=args.fp32_rows)
    (out / "export_report.json").write_text(json.dumps(report, indent=1))
    print(json.dumps(report, indent=1))
    parity = report.get("parity", {})
    return 0 if parity.get("fp32_ok", True) and parity.get("int8_ok", True) else 1


if __name__ == "__main__":
    sys.exit(main())
