"""``qascore rouge``: ROUGE of prediction files against reference files.

Inputs, one example per record, aligned by record order (read by :func:`qascore.io.iter_text_blocks`):
* plain text (``lines``): each line is one text (``--pred-field`` / ``--ref-field`` are an error);
* JSON lines (``jsonl``) or a JSON array (``json``): a field of each object (``--pred-field`` /
  ``--ref-field``); a reference field may hold a list of strings (several references);
* TSV (``tsv``) or CSV (``csv``): a column, by 0-based index or, with ``--header``, by header
  name; a first line that looks like a header needs ``--header`` or ``--no-header``.
``--references`` may be repeated: each file is one more reference per example. One input may be
``-`` (standard input).

Output: the aggregate (mean P/R/F per type) as a text table, one JSON document (``--json``) or
JSON lines (``--jsonl``), optionally every example's scores (``--per-example``), and the
signature. Long inputs show a progress count on stderr.

Streamed: the inputs are read, scored and written ``--chunk-size`` examples at a time (per-example
rows are flushed per chunk; the aggregate comes from exact sums, so it does not depend on the chunk
size), so memory is bounded by a chunk, not by the input. Plain lines are read a block at a time
and cut into chunks by list slicing, and the next chunk is read by a background thread while the
kernel, which releases the GIL, scores this one (:func:`qascore.io.read_ahead`), and JSON lines rows
are formatted and written by another while the next chunk is scored (:class:`qascore.io.WriteBehind`):
three chunks are held at most, and reading and writing cost about what the scoring does.
"""
from __future__ import annotations

import functools

import numpy as np

from ..io import (STDIN, RowSpool, aligned_chunks, display_name, dumps, iter_text_blocks, number_rows,
                  open_output, read_ahead, text_input_formats, write_bytes, write_document, WriteBehind)
from ..lexical.rouge import MULTI_REF_MODES, Rouge, RougeResult, parse_rouge_types
from ..text.sentences import nltk_sentences
from . import options

CHUNK_SIZE = 20_000  # examples read, scored and written at a time (--chunk-size)
# ``--output-format`` values, a hidden alias of --json / --jsonl that scripts may still pass.
_OLD_OUTPUT_FORMATS = {"table": "text", "jsonl": "jsonl"}
_FIGURES = ("precision", "recall", "fmeasure")


def merge_references(streams: list[list]) -> list:
    """One reference (or list of references) per example from the chunks of several reference files."""
    if len(streams) == 1:
        return streams[0]
    merged = []
    for refs in zip(*streams):
        group = []
        for r in refs:
            group.extend(r if isinstance(r, list) else [r])
        merged.append(group)
    return merged


def example_rows(result: RougeResult, start: int, end: bytes = b"\n") -> bytes:
    """The per-example JSON objects of a batch whose first example is ``start``, each followed by
    ``end``: ``{"index": i, "<type>": {"precision": p, "recall": r, "fmeasure": f}, ...}``."""
    record = {"index": np.arange(start, start + result.n_predictions, dtype=np.int64),
              **{name: {f: getattr(arrays, f) for f in _FIGURES} for name, arrays in result.items()}}
    return number_rows(record, end)


class Report:
    """The output of one format written as the batches are scored: per-example rows per batch
    (flushed, so a pipe downstream starts at once), the aggregate at the end. The JSON document
    names the aggregate before its examples, so its examples wait in a temporary file, not in
    memory."""

    def __init__(self, out, output_format: str, per_example: bool, behind: WriteBehind) -> None:
        self.out, self.format, self.per_example, self.n = out, output_format, per_example, 0
        self.spool = RowSpool(b",") if output_format == "json" and per_example else None
        self.behind = behind  # JSON lines rows are formatted and written while the next batch is scored

    def _write_rows(self, result: RougeResult, start: int) -> None:
        write_bytes(self.out, example_rows(result, start))
        self.out.flush()

    def add(self, result: RougeResult) -> None:
        if self.per_example:
            if self.format == "jsonl":
                self.behind.submit(functools.partial(self._write_rows, result, self.n))
                self.n += result.n_predictions
                return
            if self.format == "json":
                assert self.spool is not None
                self.spool.write([example_rows(result, self.n, b",")[:-1]])
            else:
                self.out.write((Rouge.table_header(list(result)) if not self.n else "")
                               + Rouge.table_rows(result, self.n))
            self.out.flush()
        self.n += result.n_predictions

    def finish(self, means: dict, signature: str) -> None:
        self.behind.finish()
        summary = {"aggregate": means, "n": self.n, "signature": signature}
        if self.format == "json":
            write_document(self.out, summary, "examples", self.spool)
        elif self.format == "jsonl":
            self.out.write(dumps(summary) + "\n")
        else:
            self.out.write(("\n" if self.per_example else "") + Rouge.table_summary(means, self.n, signature))


def _check_stdin(predictions: str, references: list[str]) -> None:
    if [predictions, *references].count(STDIN) > 1:
        raise ValueError("only one of --predictions / --references may be - (standard input)")


def run(args) -> int:
    types = parse_rouge_types(args.types.split(","))
    if args.old_output_format is not None:
        args.output_format = _OLD_OUTPUT_FORMATS[args.old_output_format]
    _check_stdin(args.predictions, args.references)
    metric = Rouge(types, use_stemmer=args.stem, tokenizer=args.tokenizer, multi_ref=args.multi_ref,
                   gamma=args.gamma, split_summaries=args.split_summaries, n_jobs=args.n_jobs)
    if args.split_summaries and "rougeLsum" in types:
        nltk_sentences("Checked. Before any input is read.")  # a missing Punkt model: one line, exit 2
    (fmt, header), *ref_formats = text_input_formats([args.predictions, *args.references], args.format,
                                                     args.tsv_header)
    streams = [iter_text_blocks(args.predictions, fmt, args.pred_field, tsv_header=header,
                                default_field="prediction", field_option="--pred-field")]
    streams += [iter_text_blocks(p, fmt, args.ref_field, tsv_header=header, allow_lists=True,
                                 default_field="reference", field_option="--ref-field")
                for p, (fmt, header) in zip(args.references, ref_formats)]
    progress = options.ProgressBar(None, options.show_progress(args, None), "rouge")
    chunks = aligned_chunks(streams, [args.predictions, *args.references], args.chunk_size, blocks=True)
    with open_output(args.output) as out, WriteBehind() as behind, read_ahead(chunks) as chunks:
        report = Report(out, args.output_format, args.per_example, behind)
        for predictions, *references in chunks:
            result = metric.result(predictions, merge_references(references))
            metric.accumulate(Rouge.result_statistics(result))
            report.add(result)
            progress.advance(result.n_predictions)
        progress.close()
        if not report.n:  # a mean over nothing would print 0.0 as if it were a score
            raise ValueError(f"{display_name(args.predictions)}: no prediction to score (the file is empty)")
        corpus = metric.compute()
        means = {name: {f: corpus[f"{name}_{f}"] for f in _FIGURES} for name in types}
        report.finish(means, corpus.signature)
    return 0


def register(p) -> None:
    """Options and run function of ``qascore rouge`` (its ``qascore --help`` line: ``cli.COMMANDS``)."""
    p.description = __doc__.split("\n\n")[0]
    options.add_predictions(p, help="predictions (lines, JSONL or TSV), or - for stdin")
    options.add_references(p, help="references aligned with the predictions, or - for stdin", repeatable=True)
    options.add_format(p)
    p.add_argument("--pred-field", default=None,
                   help="JSON field or TSV/CSV column of the prediction (default: prediction)")
    p.add_argument("--ref-field", default=None,
                   help="JSON field (str or list of str) or TSV/CSV column of the reference (default: reference)")
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
    options.add_chunk_size(p, CHUNK_SIZE)
    options.add_progress(p)
    options.add_output(p)
    options.add_hidden_alias(p, "--output-format", dest="old_output_format", choices=tuple(_OLD_OUTPUT_FORMATS),
                             default=None)
    p.set_defaults(func=run)
