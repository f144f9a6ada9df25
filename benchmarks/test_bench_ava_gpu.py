"""AVA on a GPU: onnxruntime's CUDA provider against torch on CUDA, side by side in one run.

Skips unless torch sees a GPU and onnxruntime offers ``CUDAExecutionProvider`` (``qascore[gpu]``
plus ``qascore[train]``). Both sides run the same a2 network (the all-MiniLM-L6-v2 architecture
with seed-0 weights: the cost does not depend on the weights) over the same EVOUNA-NQ dev triples,
tokenised once beforehand, in the same length-bucketed batches; host-to-device copies are timed.

- torch fp32 eager, and torch with bf16 autocast (what training uses);
- onnxruntime CUDA on the fp32 export (``onnx_export/export_ava.py``: fused attention), on its
  fp16 conversion (``--fp16``), and on the shipped int8 model: as a CUDA session runs it (the
  float graph of its dequantised weights, :mod:`qascore.runtime.dequantize`), that graph in fp16
  (``cuda_float16=True``), and as stored (dynamic int8 is a CPU format: most of its operators fall
  back to the CPU).

    QASCORE_EVOUNA=.../NQ.json PYTHONPATH=src python -m pytest benchmarks/test_bench_ava_gpu.py -s

``QASCORE_BENCH_BATCH`` sets the batch size (default 128); ``QASCORE_BENCH_JSON`` a file for the
measured figures and the parity of each ONNX model with torch fp32 on the GPU.
"""
import json
import os
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("QASCORE_EVOUNA", ROOT.parent / "shared" / "data" / "ava" / "evouna" / "NQ.json"))
BATCH = int(os.environ.get("QASCORE_BENCH_BATCH", "128"))
RESULTS = {}


def _cuda_or_skip():
    torch = pytest.importorskip("torch", reason="torch (train extra) not installed")
    ort = pytest.importorskip("onnxruntime")
    if not torch.cuda.is_available():
        pytest.skip("torch sees no GPU")
    if "CUDAExecutionProvider" not in ort.get_available_providers():
        pytest.skip("this onnxruntime has no CUDAExecutionProvider (install qascore[gpu])")
    return torch


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    torch = _cuda_or_skip()
    import transformers

    from qascore.ava.data import load_evouna, split_by_question
    from qascore.ava.torch_models import ava_net_from_config
    from qascore.ava.training import encode_slots, expand_references
    from qascore.models import bundled_path
    from qascore.runtime.tokenize import TextTokenizer

    sys.path.insert(0, str(ROOT / "onnx_export"))
    import export_ava

    if not SHARED.is_file():
        pytest.skip(f"EVOUNA not found at {SHARED}")
    dev = split_by_question(load_evouna(SHARED))[1]
    torch.manual_seed(0)
    config = transformers.BertConfig(vocab_size=30522, hidden_size=384, num_hidden_layers=6, num_attention_heads=12,
                                     intermediate_size=1536, max_position_embeddings=512)
    model = ava_net_from_config("a2", config).eval()
    out = tmp_path_factory.mktemp("ava_gpu")
    export_ava.export_onnx(model, "a2", out / "raw.onnx")
    export_ava.optimise(out / "raw.onnx", out / "fp32.onnx", num_heads=12, hidden_size=384)
    export_ava.to_float16(out / "fp32.onnx", out / "fp16.onnx")
    tokenizer_file = bundled_path("minilm", "tokenizer.json")
    tokenizer = TextTokenizer(tokenizer_file, max_length=128)
    q, r, t, _ = expand_references(dev)
    slots = encode_slots(tokenizer, "a2", q, r, t, truncation="allow")
    return {"torch": torch, "model": model.to("cuda"), "slots": slots, "rows": len(q), "pad": tokenizer.pad_id,
            "dir": out, "tokenizer_file": tokenizer_file, "reference": None}


def _torch_logits(setup, autocast):
    from qascore.ava.training import predict_logits_torch

    return predict_logits_torch(setup["model"], setup["slots"], setup["pad"], "cuda", batch_size=BATCH, autocast=autocast)


def _report(name, benchmark, setup, logits=None):
    rate = setup["rows"] / benchmark.stats.stats.median
    RESULTS[f"{name}_rows_per_s"] = rate
    if logits is not None and setup["reference"] is not None:
        delta = float(np.abs(logits - setup["reference"]).max())
        agree = float(np.mean((logits >= 0) == (setup["reference"] >= 0)))
        RESULTS[f"{name}_max_abs_delta_logit_vs_torch_fp32"] = delta
        RESULTS[f"{name}_label_agreement_vs_torch_fp32"] = agree
    print(f"\n{name}: {rate:,.0f} rows/s " + json.dumps({k: v for k, v in RESULTS.items() if k.startswith(name)}))
    if os.environ.get("QASCORE_BENCH_JSON"):
        Path(os.environ["QASCORE_BENCH_JSON"]).write_text(json.dumps({"batch": BATCH, "rows": setup["rows"], **RESULTS}, indent=1))


@pytest.mark.benchmark(group="ava-gpu")
def test_torch_cuda_fp32(benchmark, setup):
    setup["reference"] = _torch_logits(setup, autocast=False)
    logits = benchmark.pedantic(_torch_logits, args=(setup, False), rounds=5, iterations=1, warmup_rounds=1)
    _report("torch_cuda_fp32", benchmark, setup, logits)


@pytest.mark.benchmark(group="ava-gpu")
def test_torch_cuda_bf16_autocast(benchmark, setup):
    logits = benchmark.pedantic(_torch_logits, args=(setup, True), rounds=5, iterations=1, warmup_rounds=1)
    _report("torch_cuda_bf16_autocast", benchmark, setup, logits)


def _onnx_model(setup, path):
    from qascore.judges.onnx import OnnxAvaModel

    model = OnnxAvaModel(path, tokenizer_file=setup["tokenizer_file"], arch="a2", device="cuda", batch_size=BATCH)
    assert model.session.device == "cuda"
    return model


@pytest.mark.benchmark(group="ava-gpu")
@pytest.mark.parametrize("variant", ["fp32", "fp16"])
def test_onnxruntime_cuda(benchmark, setup, variant):
    model = _onnx_model(setup, setup["dir"] / f"{variant}.onnx")
    logits = benchmark.pedantic(model.logits_of_slots, args=(setup["slots"],), rounds=5, iterations=1, warmup_rounds=1)
    _report(f"onnxruntime_cuda_{variant}", benchmark, setup, logits)


@pytest.mark.benchmark(group="ava-gpu")
@pytest.mark.parametrize("graph", ["dequantised", "dequantised-float16", "as-stored"])
def test_onnxruntime_cuda_shipped_int8(benchmark, setup, graph):
    """The shipped int8 model: as a CUDA session runs it by default (its float graph, rebuilt
    from the int8 weights), in fp16 (``cuda_float16=True``) and as stored (most int8 operators
    fall back to the CPU)."""
    from qascore.judges.onnx import default_model_dir
    from qascore.runtime import OnnxSession

    model = _onnx_model(setup, default_model_dir() / "model.onnx")
    if graph != "dequantised":
        model.session = OnnxSession(model.model_path, device="cuda", input_names=model.session.input_names,
                                    output_names=["logits"], dequantize_on_cuda=graph != "as-stored",
                                    cuda_float16=graph == "dequantised-float16")
    assert model.session.graph == graph
    logits = benchmark.pedantic(model.logits_of_slots, args=(setup["slots"],), rounds=2 if graph == "as-stored" else 5,
                                iterations=1, warmup_rounds=1)
    # other weights than the torch network: compared with the shipped model's own float graph instead
    if graph == "dequantised":
        setup["shipped_float"] = logits
    elif "shipped_float" in setup:
        RESULTS[f"shipped_{graph}_max_abs_delta_logit_vs_dequantised"] = float(np.abs(logits - setup["shipped_float"]).max())
        RESULTS[f"shipped_{graph}_label_agreement_vs_dequantised"] = float(np.mean((logits >= 0) == (setup["shipped_float"] >= 0)))
    _report(f"onnxruntime_cuda_shipped_int8_{graph}", benchmark, setup)
