"""The AVA part of ``qascore demo``: the shipped models on a few hand-written triples."""
from __future__ import annotations

from .report import evaluate_triples, format_report
from .data import load_jsonl_triples
from ..judges.linear import default_linear_model
from ..judges.onnx import load_default_model


def run_demo(data_dir, out) -> None:
    triples, _ = load_jsonl_triples(data_dir / "ava_demo.jsonl", need_label=True)
    print("AVA: p(candidate is correct | question, reference)", file=out)
    model = load_default_model(device="cpu")
    probs = model.predict_proba(triples.questions, triples.references, triples.candidates)
    linear = default_linear_model().predict_proba(triples.questions, triples.references, triples.candidates)
    print(f"  {'AVA':>5} {'linear':>6} {'human':>5}  question | candidate", file=out)
    for q, t, p, lp, y in zip(triples.questions, triples.candidates, probs, linear, triples.require_labels()):
        print(f"  {p:5.2f} {lp:6.2f} {y:5d}  {q} | {t}", file=out)
    print(format_report(evaluate_triples(model, triples)), file=out)
