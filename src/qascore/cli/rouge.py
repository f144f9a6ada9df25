"""``qascore rouge``: ROUGE of prediction files against reference files.

Inputs, one example per line, aligned by line order (read by :func:`qascore.io.iter_texts`):
* plain text (``lines``): each line is one text;
* JSON lines (``jsonl``): a field of each object (``--pred-field`` / ``--ref-field``); a
  reference field may hold a list of strings (several references);
* TSV (``tsv``): a column, by 0-based index or, with ``--tsv-header``, by header name; a first
  line that looks like a header needs ``--tsv-header`` or ``--no-tsv-header``.
``--references`` may be repeated: each file is one more reference per example. One input may be
``-`` (standard input).

Output: the aggregate (mean P/R/F per type) as a text table, one JSON document (``--json``) or
JSON lines (``--jsonl``), optionally every example's scores (``--per-example``), and the
signature. Long inputs show a progress bar on stderr.
"""
from __future__ import annotations


import numpy as np

from ..io import STDIN, display_name, dumps, iter_texts, open_output, write_jsonl
from ..lexical.rouge import MULTI_REF_MODES, Rouge, RougeArrays, RougeResult, parse_rouge_types, rouge
from . import options

_CHUNK = 20_000  # examples scored per kernel call; the progress bar advances per chunk
# The old ``--output-format`` values, accepted as a hidden alias of --json / --jsonl.
_OLD_OUTPUT_FORMATS = {"table": "text", "jsonl": "jsonl"}


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


def score_in_chunks(predictions, references, progress: options.ProgressBar, **settings) -> RougeResult:
    """:func:`rouge` chunk by chunk, so the bar moves; the arrays are concatenated in order."""
    parts = []
    for start in range(0, len(predictions), _CHUNK) or [0]:
        stop = start + _CHUNK
        parts.append(rouge(predictions[start:stop], references[start:stop], **settings))
        progress.advance(len(predictions[start:stop]))
    figures = ("precision", "recall", "fmeasure")
    scores = {name: RougeArrays(*(np.concatenate([getattr(p[name], f) for p in parts]) for f in figures))
              for name in parts[0]}
    return RougeResult(scores, parts[0].signature, len(predictions))


def _example_records(result: RougeResult):
    columns = {name: (a.precision.tolist(), a.recall.tolist(), a.fmeasure.tolist()) for name, a in result.items()}
    for i in range(result.n_predictions):
        yield {"index": i, **{name: {"precision": p[i], "recall": r[i], "fmeasure": f[i]}
                              for name, (p, r, f) in columns.items()}}


def _summary(result: RougeResult) -> dict:
    return {"aggregate": result.mean(), "n": result.n_predictions, "signature": result.signature}


def write_result(result: RougeResult, output_format: str, per_example: bool, out) -> None:
    """The text table, one JSON document (``examples`` with ``per_example``), or JSON lines
    (records with ``per_example``, then the aggregate line)."""
    if output_format == "json":
        document = _summary(result)
        if per_example:
            document["examples"] = list(_example_records(result))
        out.write(dumps(document) + "\n")
    elif output_format == "jsonl":
        write_jsonl(_example_records(result) if per_example else (), out)
        write_jsonl([_summary(result)], out)
    else:
        out.write(Rouge.table(result, per_example))


def _check_stdin(predictions: str, references: list[str]) -> None:
    if [predictions, *references].count(STDIN) > 1:
        raise ValueError("only one of --predictions / --references may be - (standard input)")


def run(args) -> int:
    types = parse_rouge_types(args.types.split(","))
    if args.old_output_format is not None:
        args.output_format = _OLD_OUTPUT_FORMATS[args.old_output_format]
    _check_stdin(args.predictions, args.references)
    predictions = list(iter_texts(args.predictions, args.format, args.pred_field, tsv_header=args.tsv_header))
    if not predictions:  # a mean over nothing would print 0.0 as if it were a score
        raise ValueError(f"{display_name(args.predictions)}: no prediction to score (the file is empty)")
    streams = [list(iter_texts(p, args.format, args.ref_field, tsv_header=args.tsv_header, allow_lists=True))
               for p in args.references]
    references = _merge_reference_files(streams, args.references, len(predictions), args.predictions)
    progress = options.ProgressBar(len(predictions), options.show_progress(args, len(predictions)), "rouge")
    result = score_in_chunks(predictions, references, progress, rouge_types=types, use_stemmer=args.stem,
                             tokenizer=args.tokenizer, multi_ref=args.multi_ref, gamma=args.gamma,
                             split_summaries=args.split_summaries, n_jobs=args.n_jobs)
    with open_output(args.output) as out:
        write_result(result, args.output_format, args.per_example, out)
    return 0


def register(p) -> None:
    """Options and run function of ``qascore rouge`` (its ``qascore --help`` line: ``cli.COMMANDS``)."""
    p.description = __doc__.split("\n\n")[0]
    options.add_predictions(p, help="predictions (lines, JSONL or TSV), or - for stdin")
    options.add_references(p, help="references aligned with the predictions, or - for stdin", repeatable=True)
    options.add_format(p)
    p.add_argument("--pred-field", default="prediction", help="JSONL field or TSV column of the prediction")
    p.add_argument("--ref-field", default="reference",
                   help="JSONL field (str or list of str) or TSV column of the reference")
    options.add_tsv_header(p)
    p.add_argument("--types", default="rouge1,rouge2,rougeL", help="comma-separated: rouge1..rouge9, rougeL, rougeLsum")
    p.add_argument("--stem", action="store_true",
                   help="Porter-stem tokens longer than 3 characters (rouge-score use_stemmer)")
    p.add_argument("--tokenizer", default="rouge", help="rouge (rouge-score default), unicode, whitespace or char")
    p.add_argument("--multi-ref", choices=MULTI_REF_MODES, default="best_f",
                   help="best_f: rouge-score score_multi; max_pr: coco/DuReader independent max P and max R")
    p.add_argument("--gamma", type=float, default=1.0, help="recall weight of F (1 = F1; coco/DuReader use 1.2)")
    p.add_argument("--split-summaries", action="store_true",
                   help="rougeLsum sentences by nltk.sent_tokenize, not newlines")
    options.add_n_jobs(p)
    options.add_progress(p)
    options.add_output(p)
    options.add_hidden_alias(p, "--output-format", dest="old_output_format", choices=tuple(_OLD_OUTPUT_FORMATS),
                             default=None)
    p.set_defaults(func=run)
