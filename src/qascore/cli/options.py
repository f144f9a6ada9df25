"""The options every subcommand shares, defined once so a flag means the same thing everywhere.

Inputs: ``-p/--predictions``, ``-r/--references``, ``-q/--questions`` (a path, or ``-`` for
stdin), ``--format``; output: ``-o/--output`` (default stdout, written atomically),
``--json`` / ``--jsonl``, ``--per-example``; work: ``--n-jobs``, ``--progress`` / ``--no-progress``.
Old spellings of a subcommand stay as hidden aliases (:func:`add_hidden_alias`) for one release.
"""
from __future__ import annotations

import argparse
import sys
import time

from ..errors import require_extra
from ..io import FORMATS

OUTPUT_FORMATS = ("text", "json", "jsonl")


def add_predictions(parser, help: str = "predictions: a file, or - for stdin", required: bool = True) -> None:
    parser.add_argument("-p", "--predictions", required=required, metavar="FILE", help=help)


def add_references(parser, help: str = "references aligned with the predictions", *, required: bool = True,
                   repeatable: bool = False) -> None:
    if repeatable:
        help += "; repeat for several references per example"
    parser.add_argument("-r", "--references", required=required, metavar="FILE",
                        action="append" if repeatable else "store", help=help)


def add_questions(parser, help: str = "questions", required: bool = True) -> None:
    parser.add_argument("-q", "--questions", required=required, metavar="FILE", help=help)


def add_format(parser, choices=FORMATS, default: str = "auto", help: str | None = None) -> None:
    parser.add_argument("--format", choices=choices, default=default,
                        help=help or "input format; auto: .jsonl -> jsonl, .json -> json (an array or JSON lines), "
                                     ".tsv -> tsv, .csv -> csv, .txt -> lines; any other name (-, a pipe) by its "
                                     "content: JSON objects or a JSON array, else plain lines")


def add_tsv_header(parser) -> None:
    """``--header`` / ``--no-header`` (old spellings ``--tsv-header`` / ``--no-tsv-header``);
    neither (None) makes a header-like first line an error. JSON input takes neither."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--header", "--tsv-header", dest="tsv_header", action="store_true", default=None,
                       help="the first line of TSV, CSV or plain-line input names the columns (plain lines: "
                            "it is skipped)")
    group.add_argument("--no-header", "--no-tsv-header", dest="tsv_header", action="store_false",
                       help="the first line is data, even when it looks like a header")


def add_output(parser, *, per_example: bool = True, default_format: str = "text") -> None:
    """``-o/--output`` and the output format: ``--json`` (one document) or ``--jsonl`` (one value a line)."""
    parser.add_argument("-o", "--output", metavar="FILE", default=None,
                        help="write results here (default: stdout); written to a temporary name, then renamed")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--json", dest="output_format", action="store_const", const="json",
                       help="strict JSON (NaN written as null)")
    group.add_argument("--jsonl", dest="output_format", action="store_const", const="jsonl",
                       help="strict JSON lines: per-example records (with --per-example), then the aggregate")
    parser.set_defaults(output_format=default_format)
    if per_example:
        parser.add_argument("--per-example", action="store_true", help="also write every example's scores")


def add_n_jobs(parser) -> None:
    parser.add_argument("--n-jobs", type=int, default=None, metavar="N", help="threads (default: all cores)")


def add_progress(parser) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--progress", dest="progress", action="store_true", default=None,
                       help="always show progress on stderr")
    group.add_argument("--no-progress", dest="progress", action="store_false", help="never show progress")


MAX_CHUNK_SIZE = 10**9


def int_in(low: int, high: int):
    """An argparse ``type``: an integer in [low, high]. A bad value is one line naming the option
    and the value (``argument --chunk-size: must be an integer from 1 to 1000000000, got 2000000000``),
    checked before any work, never a message from deep inside (``islice``, a seed's range)."""
    def integer(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be an integer from {low} to {high}, got {text!r:.60}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be an integer from {low} to {high}, got {text:.60}")
        return value

    return integer


def float_in(low: float, high: float):
    """An argparse ``type``: a number in [low, high], a bad value named in one line."""
    def number(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a number from {low:g} to {high:g}, got {text!r:.60}") from None
        if not low <= value <= high:  # NaN fails this too
            raise argparse.ArgumentTypeError(f"must be a number from {low:g} to {high:g}, got {text:.60}")
        return value

    return number


def add_chunk_size(parser, default: int) -> None:
    parser.add_argument("--chunk-size", type=int_in(1, MAX_CHUNK_SIZE), default=default, metavar="N",
                        help=f"examples read, scored and written at a time (default {default}); memory is bounded "
                             "by a chunk, not by the input")


def show_progress(args, n_items: int | None, threshold: int = 50_000) -> bool:
    """``--progress`` / ``--no-progress``, else a bar for long inputs (any streamed input, whose
    length is not known in advance: ``None``) on an interactive stderr."""
    if args.progress is not None:
        return bool(args.progress)
    return (n_items is None or n_items >= threshold) and sys.stderr.isatty()


class ProgressBar:
    """A one-line bar on stderr, redrawn per batch of examples with the rate and, when the total is
    known, the time left; a count alone for a streamed input (``total=None``), ended by :meth:`close`."""

    def __init__(self, total: int | None, enabled: bool, label: str, stream=None, *, unit: str = "examples") -> None:
        self.total, self.done, self.enabled, self.label, self.unit = total, 0, enabled, label, unit
        self.stream = stream if stream is not None else sys.stderr
        self.started = time.perf_counter()

    def advance(self, n: int) -> None:
        if not self.enabled:
            return
        self.done += n
        elapsed = max(time.perf_counter() - self.started, 1e-9)
        rate = self.done / elapsed
        if self.total is None:
            self.stream.write(f"\r{self.label} {self.done} {self.unit} ({rate:,.0f}/s)")
            self.stream.flush()
            return
        width = 30
        filled = width * self.done // max(self.total, 1)
        left = (self.total - self.done) / rate if rate > 0 else 0.0
        self.stream.write(f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} "
                          f"{self.unit} {rate:,.0f}/s, {_duration(left)} left")
        if self.done >= self.total:
            self.stream.write("\n")
        self.stream.flush()

    def close(self) -> None:
        """End a streamed count's line (a bar with a total ends itself)."""
        if self.enabled and self.total is None and self.done:
            self.stream.write("\n")
            self.stream.flush()


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}" if seconds >= 3600 \
        else f"{seconds // 60}:{seconds % 60:02d}"


def add_hidden_alias(parser, *flags: str, dest: str, **kwargs) -> None:
    """An old spelling of a shared option, accepted but not shown in --help."""
    parser.add_argument(*flags, dest=dest, help=argparse.SUPPRESS, **kwargs)


def check_extra(extra: str, *modules: str) -> None:
    """Before any work: a one-line error naming ``pip install "qascore[extra]"`` when a module is missing."""
    require_extra(extra, *modules)
