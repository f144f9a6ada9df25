"""The one reader and writer of records: plain lines, JSON lines, TSV and JSON output.

Every reader decodes UTF-8 strictly, drops a leading byte-order mark, reads ``-`` as standard
input and reports the file and 1-based line of any problem; nothing is skipped silently. JSON is
parsed and written with orjson; written JSON is strict (NaN and infinities become ``null``).
Output files are written under a temporary name and renamed when complete, so a failed run never
leaves a partial file that looks finished; ``-`` (or no path) writes to standard output.
"""
from __future__ import annotations

import contextlib
import gzip
import io as _io
import os
import sys
import tempfile
from pathlib import Path
from typing import IO, Any
from collections.abc import Iterable, Iterator, Sequence

import orjson

from .errors import InputFormatError

STDIN = "-"
FORMATS = ("auto", "lines", "jsonl", "tsv")
# Cells that, found in the first line of a TSV file, show that the line names the columns.
_HEADER_WORDS = frozenset({
    "id", "qid", "query_id", "question_id", "question", "query", "prediction", "predictions",
    "reference", "references", "candidate", "answer", "answers", "text", "hypothesis", "label",
    "system", "target", "summary",
})
_JSON_OPTIONS = orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS


def display_name(path) -> str:
    """How errors name a path: ``<stdin>`` for ``-``."""
    return "<stdin>" if str(path) == STDIN else str(path)


def _open_binary(path) -> contextlib.AbstractContextManager[Any]:
    """A context manager giving a binary stream; stdin is not closed on exit."""
    if str(path) == STDIN:
        return contextlib.nullcontext(sys.stdin.buffer)
    if str(path).endswith(".gz"):
        return gzip.open(path, "rb")
    return open(path, "rb")


def open_text(path) -> IO[str]:
    """Open a text file (``.gz`` transparently, ``-`` for stdin) for strict UTF-8 reading."""
    if str(path) == STDIN:
        return _io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8-sig", errors="strict", newline="")
    path = Path(path)
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8-sig", errors="strict", newline="")
    return open(path, encoding="utf-8-sig", errors="strict", newline="")


def _raw_lines(stream) -> Iterator[bytes]:
    """Lines of a binary stream without their endings; a line ends at LF, CRLF or a lone CR (the
    universal newlines of Python's text files, so old Mac files are not read as one line). A
    leading UTF-8 byte-order mark is dropped before (a file holding only a BOM has no line)."""
    first = True
    for data in stream:
        if first:
            first = False
            data = data.removeprefix(b"\xef\xbb\xbf")
            if not data:
                continue
        ended = data.endswith(b"\n")
        body = data[:-1] if ended else data
        if ended and body.endswith(b"\r"):
            body = body[:-1]
        if b"\r" not in body:
            yield body
            continue
        pieces = body.split(b"\r")
        if not ended and body.endswith(b"\r"):
            pieces.pop()  # a CR that ends the file ends its last line
        yield from pieces


def iter_lines(path) -> Iterator[tuple[int, str]]:
    """Yield (line number, line without its ending); a leading BOM is dropped.

    Lines end at LF, CRLF or a lone CR. Invalid UTF-8 raises :class:`InputFormatError` naming the
    line and byte.
    """
    name = display_name(path)
    with _open_binary(path) as stream:
        for lineno, data in enumerate(_raw_lines(stream), 1):
            try:
                yield lineno, data.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise InputFormatError(name, lineno, f"invalid UTF-8 ({exc.reason} at byte {exc.start})") from None


def parse_json(text: str | bytes, path, lineno: int | None) -> Any:
    """One JSON value; a syntax error names the file and line."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        raise InputFormatError(display_name(path), lineno, f"invalid JSON: {exc}") from None


def iter_jsonl(path, *, allow_blank: bool = True) -> Iterator[tuple[int, Any]]:
    """Yield (line number, parsed JSON value) for each non-blank line of a JSON-lines file."""
    for lineno, line in iter_lines(path):
        if not line.strip():
            if allow_blank:
                continue
            raise InputFormatError(display_name(path), lineno, "blank line, expected a JSON value")
        yield lineno, parse_json(line, path, lineno)


def read_json(path) -> Any:
    """A whole JSON document (``-`` for stdin)."""
    with _open_binary(path) as stream:
        data = stream.read()
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    return parse_json(data, path, None)


def require_field(record, field: str, types, path, lineno: int):
    """Return ``record[field]`` checked against ``types``; a missing or mistyped field names the line."""
    name = display_name(path)
    if not isinstance(record, dict):
        raise InputFormatError(name, lineno, f"expected a JSON object, got {type(record).__name__}")
    if field not in record:
        raise InputFormatError(name, lineno, f"missing field {field!r}")
    value = record[field]
    if not isinstance(value, types):
        names = types.__name__ if isinstance(types, type) else "/".join(t.__name__ for t in types)
        raise InputFormatError(name, lineno, f"field {field!r} must be {names}, got {type(value).__name__}")
    return value


def guess_format(path) -> str:
    """``auto`` resolved by suffix: .jsonl/.json -> jsonl, .tsv -> tsv, anything else (and ``-``) -> lines."""
    suffix = Path(str(path).removesuffix(".gz")).suffix.lower()
    return {".jsonl": "jsonl", ".json": "jsonl", ".tsv": "tsv"}.get(suffix, "lines")


def looks_like_header(cells: Sequence[str], wanted: str | None = None) -> bool:
    """True when a TSV line names columns: it holds the wanted column's name or a common field name."""
    names = {cell.strip().lower() for cell in cells}
    return (wanted is not None and wanted.lower() in names) or bool(names & _HEADER_WORDS)


def _tsv_column(path, column: str, header: bool | None, cells: list[str], lineno: int) -> tuple[int, bool]:
    """The 0-based index of ``column`` and whether the first line is a header to skip."""
    name = display_name(path)
    if header is None and looks_like_header(cells, None if column.isdigit() else column):
        raise InputFormatError(name, lineno, "the first line looks like a header; pass --tsv-header to use it "
                                             "as column names or --no-tsv-header to score it as data")
    if header and not column.isdigit():
        if column not in cells:
            raise InputFormatError(name, lineno, f"no column named {column!r} in the header {cells}")
        return cells.index(column), True
    if not column.isdigit():
        raise InputFormatError(name, lineno, f"TSV column {column!r} must be a 0-based index (or use --tsv-header)")
    return int(column), bool(header)


def iter_texts(path, fmt: str = "auto", field: str = "0", *, tsv_header: bool | None = None,
               allow_lists: bool = False) -> Iterator[str | list[str]]:
    """The texts of one file in line order.

    ``lines``: every line is one text (an empty line is an empty text). ``jsonl``: ``field`` of each
    object (with ``allow_lists``, a non-empty list of strings too). ``tsv``: the column ``field``,
    a 0-based index or, with ``tsv_header=True``, a header name; with ``tsv_header=None`` a first
    line that looks like a header is an error, so a header is never scored as data by accident.
    """
    fmt = guess_format(path) if fmt == "auto" else fmt
    name = display_name(path)
    if fmt == "lines":
        for _, line in iter_lines(path):
            yield line
        return
    if fmt == "jsonl":
        types = (str, list) if allow_lists else str
        for lineno, record in iter_jsonl(path, allow_blank=False):
            value = require_field(record, field, types, path, lineno)
            if isinstance(value, list) and (not value or not all(isinstance(v, str) for v in value)):
                raise InputFormatError(name, lineno, f"field {field!r} must be a non-empty list of strings")
            yield value
        return
    if fmt != "tsv":
        raise ValueError(f"unknown format {fmt!r} (expected one of {', '.join(FORMATS)})")
    column = -1
    for lineno, line in iter_lines(path):
        cells = line.split("\t")
        if column < 0:
            column, skip = _tsv_column(path, field, tsv_header, cells, lineno)
            if skip:
                continue
        if column >= len(cells):
            raise InputFormatError(
                name, lineno, f"expected at least {column + 1} tab-separated columns, got {len(cells)}")
        yield cells[column]


def chunked(items: Iterable, size: int) -> Iterator[list]:
    """Consecutive lists of at most ``size`` items (the last may be shorter; none is empty)."""
    if size < 1:
        raise ValueError(f"chunk size must be >= 1, got {size}")
    chunk: list = []
    for item in items:
        chunk.append(item)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def dumps(value: Any) -> str:
    """Strict JSON text of ``value``: NaN and infinities as ``null``, numpy scalars and arrays as numbers."""
    return orjson.dumps(value, option=_JSON_OPTIONS).decode("utf-8")


def write_jsonl(records: Iterable[Any], out: IO[str]) -> None:
    """One strict JSON value a line."""
    for record in records:
        out.write(dumps(record))
        out.write("\n")


@contextlib.contextmanager
def open_output(path=None) -> Iterator[IO[str]]:
    """A text stream for results: stdout for ``None`` or ``-``; otherwise a temporary file beside
    ``path`` that replaces ``path`` only when the block finishes without an error (gzip-compressed
    when ``path`` ends in ``.gz``)."""
    if path is None or str(path) == STDIN:
        yield sys.stdout
        sys.stdout.flush()
        return
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent or ".")
    try:
        if target.suffix == ".gz":
            with os.fdopen(fd, "wb") as raw, gzip.open(raw, "wt", encoding="utf-8", newline="\n") as stream:
                yield stream
        else:
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as stream:
                yield stream
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
