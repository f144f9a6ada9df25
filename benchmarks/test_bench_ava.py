"""AVA speed, side by side in one run:

- the shipped int8 ONNX model vs torch eager fp32 of the same network (a2 on MiniLM-L6; torch
  gets the pretrained backbone and a fresh head, which costs exactly the same), triples/s on
  EVOUNA-NQ dev triples, both on the same threads and the same length-bucketed batches (the
  int8 side includes the stacker's linear features; torch runs the network alone);
- end to end with the defaults (`Ava()`: the calibrated cascade, refs=max, early stop, repeated
  rows once) and with the network alone, on EVOUNA-NQ dev answers with all their gold aliases and
  on the dev answers with three or more aliases, against the bare network on single-reference
  rows, as answers/s over rows/s, with the share of answers each stage of the cascade decided;
- every judge's answers/s on the same answers;
- single-triple latency of the int8 model on one core (p50 = pytest-benchmark's median);
- the linear model: features kernel + numpy inference from packed ids, and end to end from strings.

    PYTHONPATH=src python -m pytest benchmarks/test_bench_ava.py --benchmark-only -s
"""
import os
from pathlib import Path

import pytest

from qascore.ava.data import load_evouna, split_by_question, split_gold_alternatives
from qascore.judges.linear import _kernel, compute_features, default_linear_model, pack_short_answers
from qascore.text import Vocabulary, get_tokenizer

SHARED = Path(os.environ.get("QASCORE_EVOUNA", Path(__file__).resolve().parents[2] / "shared" / "data" / "ava" / "evouna" / "NQ.json"))
N_TRANSFORMER = 128
N_END_TO_END = 512
RESULTS = {}


@pytest.fixture(scope="module")
def dev():
    if not SHARED.is_file():
        pytest.skip(f"EVOUNA not found at {SHARED}")
    return split_by_question(load_evouna(SHARED))[1]


def _report(name, value, unit):
    RESULTS[name] = value
    print(f"\n{name}: {value:,.1f} {unit}")


# --- transformer ---------------------------------------------------------------------------

def _threads():
    return int(os.environ.get("QASCORE_BENCH_THREADS", "0")) or None


@pytest.fixture(scope="module")
def onnx_model():
    """The shipped network alone (no triage, no cache)."""
    pytest.importorskip("onnxruntime")
    from qascore.judges.onnx import load_default_network

    return load_default_network(device="cpu", n_threads=_threads())


@pytest.fixture(scope="module")
def default_judge():
    """The shipped default judge (calibrated triage, then the network), without the verdict cache,
    so every round judges afresh."""
    pytest.importorskip("onnxruntime")
    from qascore.judges.onnx import load_default_model

    return load_default_model(device="cpu", n_threads=_threads())


def test_int8_onnx_triples_per_s(benchmark, dev, onnx_model):
    sample = dev.subset(range(N_TRANSFORMER))
    benchmark.pedantic(onnx_model.predict_proba, args=(sample.questions, sample.references, sample.candidates),
                       rounds=3, iterations=1, warmup_rounds=1)
    _report("int8_onnx_triples_per_s", N_TRANSFORMER / benchmark.stats.stats.median, "triples/s")


def test_torch_fp32_triples_per_s(benchmark, dev, onnx_model):
    torch = pytest.importorskip("torch", reason="torch (train extra) not installed")
    transformers = pytest.importorskip("transformers")
    from qascore.ava.torch_models import ava_net_from_config
    from qascore.ava.training import encode_slots, expand_references, predict_logits_torch

    torch.set_num_threads(onnx_model.session.n_threads)
    # the all-MiniLM-L6-v2 architecture; weights do not change the cost, so none are loaded
    config = transformers.BertConfig(vocab_size=30522, hidden_size=384, num_hidden_layers=6, num_attention_heads=12,
                                     intermediate_size=1536, max_position_embeddings=512)
    model = ava_net_from_config("a2", config).eval()
    sample = dev.subset(range(N_TRANSFORMER))
    tok = onnx_model.tokenizer

    def run():
        q, r, t, _ = expand_references(sample)
        slots = encode_slots(tok, "a2", q, r, t, truncation="allow")
        with torch.inference_mode():
            return predict_logits_torch(model, slots, tok.pad_id, "cpu", batch_size=onnx_model.batch_size)

    benchmark.pedantic(run, rounds=2, iterations=1, warmup_rounds=1)
    _report("torch_fp32_triples_per_s", N_TRANSFORMER / benchmark.stats.stats.median, "triples/s")
    if "int8_onnx_triples_per_s" in RESULTS:
        _report("ratio_int8_onnx_over_torch_fp32", RESULTS["int8_onnx_triples_per_s"] / RESULTS["torch_fp32_triples_per_s"], "x")


@pytest.fixture(scope="module")
def dev_aliases():
    if not SHARED.is_file():
        pytest.skip(f"EVOUNA not found at {SHARED}")
    return split_by_question(load_evouna(SHARED, aliases=True))[1].subset(range(N_END_TO_END))


@pytest.mark.parametrize("batch_size", [32, 512])
def test_bare_model_rows_per_s(benchmark, dev_aliases, onnx_model, batch_size):
    """The network alone on single-reference rows (each answer's first alias). On a CPU a batch of
    512 rows padded to its longest is several times slower than the model's own batches of 32,
    so the end-to-end ratio is taken against the faster of the two."""
    d = dev_aliases
    r = [refs[0] for refs in d.references]
    default, onnx_model.batch_size = onnx_model.batch_size, batch_size
    try:
        benchmark.pedantic(onnx_model.row_logits, args=(d.questions, r, d.candidates), rounds=3, iterations=1,
                           warmup_rounds=1)
    finally:
        onnx_model.batch_size = default
    rate = len(d) / benchmark.stats.stats.median
    _report(f"bare_model_rows_per_s_batch_{batch_size}", rate, "rows/s")
    RESULTS["bare_model_rows_per_s"] = max(rate, RESULTS.get("bare_model_rows_per_s", 0.0))


@pytest.fixture(scope="module")
def dev_many_aliases():
    """The dev answers whose gold answer lists three or more aliases (3.9 on average)."""
    if not SHARED.is_file():
        pytest.skip(f"EVOUNA not found at {SHARED}")
    d = split_by_question(load_evouna(SHARED, aliases=True))[1]
    return d.subset([i for i, refs in enumerate(d.references) if len(refs) >= 3])


@pytest.mark.parametrize("data", ["dev_aliases", "dev_many_aliases"])
@pytest.mark.parametrize("judge", ["default_judge", "onnx_model"])
def test_end_to_end_answers_per_s(benchmark, request, data, judge):
    """`Ava(judge)` (refs=max, early stop, repeated rows once, stacker) on answers with all their
    gold aliases; the ratio to the bare network's rows/s is the issue's cost target."""
    from qascore.ava import Ava
    from qascore.judges.cascade import STAGES

    d, model = request.getfixturevalue(data), request.getfixturevalue(judge)
    metric = Ava(model)
    benchmark.pedantic(metric.probabilities, args=(d.questions, d.references, d.candidates), rounds=3,
                       iterations=1, warmup_rounds=1)
    name = f"{judge}_{data}"
    _report(f"{name}_answers_per_s", len(d) / benchmark.stats.stats.median, "answers/s")
    _report(f"{data}_aliases_per_answer", sum(map(len, d.references)) / len(d), "")
    if hasattr(model, "judge_stages"):
        _, stage = model.judge_stages(d.questions, d.references, d.candidates)
        for k, stage_name in enumerate(STAGES):
            _report(f"{name}_share_{stage_name}", 100.0 * float((stage == k).mean()), "%")
    if "bare_model_rows_per_s" in RESULTS:
        _report(f"ratio_{name}_over_bare_rows", RESULTS[f"{name}_answers_per_s"] / RESULTS["bare_model_rows_per_s"],
                "x")


@pytest.mark.parametrize("spec", ["containment", "workbench", "linear", "cascade"])
def test_every_judge_answers_per_s(benchmark, dev_aliases, spec):
    from qascore.judges import load_judge

    if spec == "cascade":
        pytest.importorskip("onnxruntime")
    judge = load_judge(spec, n_threads=_threads())
    judge = getattr(judge, "inner", judge)  # no verdict cache between rounds
    d = dev_aliases
    benchmark.pedantic(judge.predict_proba, args=(d.questions, d.references, d.candidates), rounds=3,
                       iterations=1, warmup_rounds=1)
    _report(f"judge_{spec}_answers_per_s", len(d) / benchmark.stats.stats.median, "answers/s")


def test_single_triple_latency_one_core(benchmark, dev):
    pytest.importorskip("onnxruntime")
    from qascore.judges.onnx import load_default_network

    model = load_default_network(device="cpu", n_threads=1)
    one = dev.subset([5])
    benchmark.pedantic(model.predict_proba, args=(one.questions, one.references, one.candidates),
                       rounds=50, iterations=1, warmup_rounds=3)
    _report("single_triple_p50_ms_one_core", benchmark.stats.stats.median * 1000, "ms")


# --- linear model --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def big(dev):
    reps = 10
    q, r, t = dev.questions * reps, [x[0] for x in dev.references] * reps, dev.candidates * reps
    return q, r, t, [split_gold_alternatives(x) for x in r]


def test_linear_from_packed_ids(benchmark, big):
    q, r, t, s = big
    tok, vocab = get_tokenizer("rouge"), Vocabulary()
    packed = [tok.encode_batch(x, vocab) for x in (q, r, t)]
    sp, group = pack_short_answers(tok, vocab, s, 2)
    model, kernel = default_linear_model(), _kernel()
    from qascore._parallel import resolve_n_jobs

    threads = resolve_n_jobs(int(os.environ.get("QASCORE_BENCH_THREADS", "0")) or None)

    def run():
        f = kernel(packed[0].ids, packed[0].offsets, packed[1].ids, packed[1].offsets, packed[2].ids,
                   packed[2].offsets, sp.ids, sp.offsets, group, len(vocab), threads)
        return model.proba_of_features(f)

    benchmark.pedantic(run, rounds=5, iterations=1, warmup_rounds=1)
    _report("linear_packed_triples_per_s", len(q) / benchmark.stats.stats.median, "triples/s")


def test_linear_end_to_end_from_strings(benchmark, big):
    q, r, t, s = big
    model = default_linear_model()
    benchmark.pedantic(lambda: model.proba_of_features(compute_features(q, r, t, s)), rounds=3, iterations=1)
    _report("linear_strings_triples_per_s", len(q) / benchmark.stats.stats.median, "triples/s")
