"""``qascore rouge``: ROUGE of prediction files against reference files.

Inputs, one example per line, aligned by line order:
* plain text (``lines``): each line is one text;
* JSON lines (``jsonl``): a field of each object (``--pred-field`` / ``--ref-field``); a
  reference field may hold a list of strings (several references);
* TSV (``tsv``): a column, by 0-based index or, with ``--tsv-header``, by header name.
``--references`` may be repeated: each file is one more reference per example.

Output: the aggregate (mean P/R/F per type) as a table or JSON lines, optionally every
example's scores (``--per-example``), and the signature. Long inputs show a progress bar on stderr.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from ..errors import InputFormatError
from ..io import iter_jsonl, iter_lines, require_field
from ..lexical.rouge import MULTI_REF_MODES, RougeArrays, RougeResult, parse_rouge_types, rouge

FORMATS = ("auto", "lines", "jsonl", "tsv")
_CHUNK = 20_000  # examples scored per kernel call; the progress bar advances per chunk
_PROGRESS_MIN = 50_000  # inputs at least this long show a progress bar unless --no-progress


def guess_format(path) -> str:
    suffixes = Path(str(path).removesuffix(".gz")).suffix.lower()
    return {".jsonl": "jsonl", ".json": "jsonl", ".tsv": "tsv"}.get(suffixes, "lines")


def _tsv_column(path, column: str, header: bool, header_cells: list[str], lineno: int) -> int:
    if header and not column.isdigit():
        if column not in header_cells:
            raise InputFormatError(path, lineno, f"no column named {column!r} in the header {header_cells}")
        return header_cells.index(column)
    if not column.isdigit():
        raise InputFormatError(path, lineno, f"TSV column {column!r} must be a 0-based index (or use --tsv-header)")
    return int(column)


def read_texts(path, fmt: str, field: str, tsv_header: bool, allow_lists: bool) -> list:
    """Texts of one file in line order; a reference field may hold a list of strings."""
    fmt = guess_format(path) if fmt == "auto" else fmt
    texts: list = []
    if fmt == "lines":
        return [line for _, line in iter_lines(path)]
    if fmt == "jsonl":
        types = (str, list) if allow_lists else str
        for lineno, record in iter_jsonl(path, allow_blank=False):
            value = require_field(record, field, types, path, lineno)
            if isinstance(value, list):
                if not value or not all(isinstance(v, str) for v in value):
                    raise InputFormatError(path, lineno, f"field {field!r} must be a non-empty list of strings")
            texts.append(value)
        return texts
    column = None
    for lineno, line in iter_lines(path):
        cells = line.split("\t")
        if column is None:
            column = _tsv_column(path, field, tsv_header, cells, lineno)
            if tsv_header:
                continue
        if column >= len(cells):
            raise InputFormatError(path, lineno, f"expected at least {column + 1} tab-separated columns, got {len(cells)}")
        texts.append(cells[column])
    return texts


def _merge_reference_files(streams: list[list], paths: list[str], n_predictions: int, pred_path: str) -> list:
    for stream, path in zip(streams, paths):
        if len(stream) != n_predictions:
            raise ValueError(f"{pred_path} has {n_predictions} examples but {path} has {len(stream)}")
    if len(streams) == 1:
        return streams[0]
    merged = []
    for refs in zip(*streams):
        group = []
        for r in refs:
            group.extend(r if isinstance(r, list) else [r])
        merged.append(group)
    return merged


class ProgressBar:
    """A one-line bar on stderr, redrawn per chunk."""

    def __init__(self, total: int, enabled: bool, stream=None) -> None:
        self.total, self.done, self.enabled = total, 0, enabled
        self.stream = stream if stream is not None else sys.stderr

    def advance(self, n: int) -> None:
        if not self.enabled:
            return
        self.done += n
        width = 30
        filled = width * self.done // max(self.total, 1)
        self.stream.write(f"\rrouge [{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total}")
        if self.done >= self.total:
            self.stream.write("\n")
        self.stream.flush()


def score_in_chunks(predictions, references, progress: ProgressBar, **options) -> RougeResult:
    parts = []
    for start in range(0, len(predictions), _CHUNK) or [0]:
        stop = start + _CHUNK
        parts.append(rouge(predictions[start:stop], references[start:stop], **options))
        progress.advance(len(predictions[start:stop]))
    scores = {
        name: RougeArrays(*(np.concatenate([getattr(p[name], f) for p in parts]) for f in ("precision", "recall", "fmeasure")))
        for name in parts[0]
    }
    return RougeResult(scores, parts[0].signature, len(predictions))


def _example_records(result: RougeResult):
    columns = {name: (a.precision.tolist(), a.recall.tolist(), a.fmeasure.tolist()) for name, a in result.items()}
    for i in range(result.n_predictions):
        yield {"index": i, **{name: {"precision": c[0][i], "recall": c[1][i], "fmeasure": c[2][i]} for name, c in columns.items()}}


def write_jsonl(result: RougeResult, per_example: bool, out) -> None:
    if per_example:
        for record in _example_records(result):
            out.write(json.dumps(record) + "\n")
    out.write(json.dumps({"aggregate": result.mean(), "n": result.n_predictions, "signature": result.signature}) + "\n")


def write_table(result: RougeResult, per_example: bool, out) -> None:
    if per_example:
        names = list(result)
        out.write("index\t" + "\t".join(f"{n}_F" for n in names) + "\n")
        for record in _example_records(result):
            out.write(f"{record['index']}\t" + "\t".join(f"{record[n]['fmeasure']:.5f}" for n in names) + "\n")
        out.write("\n")
    out.write(f"{'type':<10} {'precision':>10} {'recall':>10} {'F':>10}   (mean over {result.n_predictions})\n")
    for name, mean in result.mean().items():
        out.write(f"{name:<10} {mean['precision']:>10.5f} {mean['recall']:>10.5f} {mean['fmeasure']:>10.5f}\n")
    out.write(f"signature: {result.signature}\n")


def run(args) -> int:
    types = parse_rouge_types(args.types.split(","))
    predictions = read_texts(args.predictions, args.format, args.pred_field, args.tsv_header, allow_lists=False)
    streams = [read_texts(p, args.format, args.ref_field, args.tsv_header, allow_lists=True) for p in args.references]
    references = _merge_reference_files(streams, args.references, len(predictions), args.predictions)
    show = args.progress if args.progress is not None else (len(predictions) >= _PROGRESS_MIN and sys.stderr.isatty())
    progress = ProgressBar(len(predictions), show)
    result = score_in_chunks(predictions, references, progress, rouge_types=types, use_stemmer=args.stem,
                             tokenizer=args.tokenizer, multi_ref=args.multi_ref, gamma=args.gamma,
                             split_summaries=args.split_summaries, n_jobs=args.n_jobs)
    out = open(args.output, "w", encoding="utf-8") if args.output else sys.stdout
    try:
        (write_jsonl if args.output_format == "jsonl" else write_table)(result, args.per_example, out)
    finally:
        if args.output:
            out.close()
    return 0


def register(subparsers) -> None:
    p = subparsers.add_parser("rouge", help="ROUGE-N/L/Lsum of predictions against references (rouge-score exact)",
                              description=__doc__.split("\n\n")[0])
    p.add_argument("--predictions", "-p", required=True, help="file of predictions (lines, JSONL or TSV)")
    p.add_argument("--references", "-r", required=True, action="append",
                   help="file of references aligned with the predictions; repeat for several references")
    p.add_argument("--format", choices=FORMATS, default="auto",
                   help="input format; auto: .jsonl/.json -> jsonl, .tsv -> tsv, else plain lines")
    p.add_argument("--pred-field", default="prediction", help="JSONL field or TSV column of the prediction")
    p.add_argument("--ref-field", default="reference", help="JSONL field (str or list of str) or TSV column of the reference")
    p.add_argument("--tsv-header", action="store_true", help="the first TSV line names the columns")
    p.add_argument("--types", default="rouge1,rouge2,rougeL", help="comma-separated: rouge1..rouge9, rougeL, rougeLsum")
    p.add_argument("--stem", action="store_true", help="Porter-stem tokens longer than 3 characters (rouge-score use_stemmer)")
    p.add_argument("--tokenizer", default="rouge", help="rouge (rouge-score default), unicode, whitespace or char")
    p.add_argument("--multi-ref", choices=MULTI_REF_MODES, default="best_f",
                   help="best_f: rouge-score score_multi; max_pr: coco/DuReader independent max P and max R")
    p.add_argument("--gamma", type=float, default=1.0, help="recall weight of F (1 = F1; coco/DuReader use 1.2)")
    p.add_argument("--split-summaries", action="store_true", help="rougeLsum sentences by nltk.sent_tokenize, not newlines")
    p.add_argument("--n-jobs", type=int, default=None, help="threads (default: all cores)")
    p.add_argument("--output-format", choices=("table", "jsonl"), default="table")
    p.add_argument("--per-example", action="store_true", help="also write every example's scores")
    p.add_argument("--output", "-o", help="write here instead of stdout")
    progress = p.add_mutually_exclusive_group()
    progress.add_argument("--progress", dest="progress", action="store_true", default=None, help="always show progress")
    progress.add_argument("--no-progress", dest="progress", action="store_false", help="never show progress")
    p.set_defaults(func=run)


def run_demo(data_dir, out) -> None:
    """``qascore demo`` part: ROUGE of the bundled QA answers in both multi-reference conventions."""
    folder = data_dir / "rouge"
    with resources_path(folder / "predictions.jsonl") as pred_path, resources_path(folder / "references.jsonl") as ref_path:
        predictions = read_texts(pred_path, "jsonl", "prediction", False, allow_lists=False)
        references = read_texts(ref_path, "jsonl", "reference", False, allow_lists=True)
    out.write(f"== ROUGE: {len(predictions)} answers, 1-2 references each (rouge-score exact, stemming) ==\n")
    types = ("rouge1", "rouge2", "rougeL", "rougeLsum")
    best = rouge(predictions, references, types, use_stemmer=True)
    write_table(best, per_example=True, out=out)
    out.write("\ncoco/DuReader convention: max P and max R over references, F with gamma 1.2\n")
    write_table(rouge(predictions, references, ("rougeL",), use_stemmer=True, multi_ref="max_pr", gamma=1.2),
                per_example=False, out=out)


def resources_path(traversable):
    """A real file path for a packaged resource (zip-safe)."""
    from importlib.resources import as_file

    return as_file(traversable)
