"""The one reader and writer of records: plain lines, JSON lines, TSV and JSON output.

Every reader decodes UTF-8 strictly, drops a leading byte-order mark, reads ``-`` as standard
input and reports the file and 1-based line of any problem; nothing is skipped silently. JSON is
parsed and written with orjson; written JSON is strict (NaN and infinities become ``null``).
TREC qrels (``query-id iteration doc-id relevance``) are read and written here too
(:func:`read_qrels`, :func:`write_qrels`).
Output files are written under a temporary name and renamed when complete, so a failed run never
leaves a partial file that looks finished; devices and FIFOs are written straight through, an
output that is one of the run's inputs is refused (:func:`open_output`); ``-`` (or no path)
writes to standard output.
"""
from __future__ import annotations

import contextlib
import csv
import errno
import gzip
import io as _io
import itertools
import os
import queue
import secrets
import stat
import sys
import tempfile
import threading
import zlib
from concurrent.futures import Future, ThreadPoolExecutor, wait
from pathlib import Path
from typing import IO, Any, NamedTuple
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence

import numpy as np
import orjson

from ._kernels.json_rows import fill_rows
from ._kernels.text_lines import decode_lines
from .errors import InputFormatError
from .errors import display_name as _display_name

__all__ = ["Qrel", "chunked", "dumps", "guess_format", "iter_jsonl", "iter_lines", "iter_texts", "open_output",
           "read_json", "read_qrels", "write_jsonl", "write_qrels"]

STDIN = "-"
FORMATS = ("auto", "lines", "jsonl", "json", "tsv", "csv")
# Cells that, found in the first line of a TSV file, show that the line names the columns.
_HEADER_WORDS = frozenset({
    "id", "qid", "query_id", "question_id", "question", "query", "prediction", "predictions",
    "reference", "references", "candidate", "answer", "answers", "text", "hypothesis", "label",
    "system", "target", "summary",
})
_JSON_OPTIONS = orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS


def display_name(path) -> str:
    """How errors name a path: ``<stdin>`` for ``-``, control characters (a newline in a file
    name) escaped so that a message stays one line."""
    return _display_name(path)


_GZIP_MAGIC = b"\x1f\x8b"
_HEAD_BYTES = 8192  # what :func:`read_head` reads to guess a format


def _stdin_buffer():
    """Standard input's byte stream; a closed standard input (``<&-`` in a shell) is a one-line error."""
    if sys.stdin is None or getattr(sys.stdin, "buffer", None) is None:
        raise InputFormatError("<stdin>", None, "standard input is closed; give the input as a file or pipe it in")
    return sys.stdin.buffer


def standard_output() -> IO[str]:
    """Standard output; a closed one (``>&-`` in a shell) is a one-line error, not a traceback."""
    if sys.stdout is None:
        raise OSError("standard output is closed (>&- in the shell); redirect it (> results.txt), or give "
                      "-o FILE where the command takes one")
    return sys.stdout


class _GzipReader:
    """A gzip stream whose damage (a truncated file, a bad CRC or length, corrupt data) is an
    :class:`InputFormatError` naming the file, not a traceback from the gzip module."""

    def __init__(self, raw, path) -> None:
        self._gzip, self._path = gzip.GzipFile(fileobj=raw, mode="rb"), path

    def _guarded(self, read, size: int) -> bytes:
        try:
            return read(size)
        except EOFError:
            reason = "truncated gzip file (it ends before the end of its compressed data); download or copy it again"
        except (gzip.BadGzipFile, zlib.error) as exc:
            reason = f"damaged gzip file ({exc}); download or copy it again, or check it with gzip -t"
        raise InputFormatError(display_name(self._path), None, reason)

    def read(self, size: int = -1) -> bytes:
        return self._guarded(self._gzip.read, size)

    def read1(self, size: int = -1) -> bytes:
        return self._guarded(self._gzip.read1, size)

    def close(self) -> None:
        self._gzip.close()


class _HeadThenRest(_io.RawIOBase):
    """The bytes :func:`read_head` took from a one-shot input, then the rest of that input's stream."""

    def __init__(self, head: bytes, rest, stack: contextlib.ExitStack) -> None:
        super().__init__()
        self._head, self._rest, self._stack = memoryview(head), rest, stack

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        if self._head:
            n = min(len(buffer), len(self._head))
            buffer[:n] = self._head[:n]
            self._head = self._head[n:]
            return n
        data = getattr(self._rest, "read1", self._rest.read)(len(buffer))
        buffer[:len(data)] = data
        return len(data)

    def close(self) -> None:
        if not self.closed:
            self._stack.close()
        super().close()


# One-shot inputs (standard input, a pipe, a FIFO) whose head :func:`read_head` has read: path ->
# (those bytes, the open stream after them, what closes it). The next reader of the path gets them
# back first, so guessing a format never costs an input its first bytes, nor a second opening.
# A head is handed on only to a reader of the same input (see :func:`_identity`): one left behind by
# a run that failed before reading never reaches a later input that reuses the name (``/dev/fd/5``).
_HEADS: dict[str, tuple[bytes, Any, contextlib.ExitStack, object]] = {}
_HEADS_LOCK = threading.Lock()


def _head_key(path) -> str:
    """One spelling per path (``./x`` and ``x`` alike: readers may hand on a ``Path``)."""
    return STDIN if str(path) == STDIN else os.path.normpath(os.fspath(path))


def _identity(path) -> object:
    """What tells one one-shot input from a later one of the same name: the stdin stream object,
    else the device and inode the name leads to (a pipe's own)."""
    if str(path) == STDIN:
        return id(getattr(sys.stdin, "buffer", None))
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino


def _take_head(path) -> tuple[bytes, Any, contextlib.ExitStack] | None:
    """The head :func:`read_head` kept for ``path``, removed from the table (None when none, or
    when it was kept for another input of the same name, which is then closed)."""
    with _HEADS_LOCK:
        kept = _HEADS.pop(_head_key(path), None)
    if kept is None:
        return None
    head, rest, stack, identity = kept
    if identity != _identity(path):
        stack.close()
        return None
    return head, rest, stack


@contextlib.contextmanager
def _open_stream(path) -> Iterator[Any]:
    """A binary stream of ``path``'s content, decompressed when it is gzip (by its ``.gz`` name or,
    for a stream without a telling name, its first bytes); stdin is not closed on exit."""
    with contextlib.ExitStack() as stack:
        if str(path) == STDIN:
            raw = _stdin_buffer()
        else:
            raw = stack.enter_context(open(path, "rb"))
        peek = getattr(raw, "peek", None)
        if str(path).endswith(".gz") or (peek is not None and peek(2)[:2] == _GZIP_MAGIC):
            stream = _GzipReader(raw, path)
            stack.callback(stream.close)
            yield stream
        else:
            yield raw


def _open_binary(path) -> contextlib.AbstractContextManager[Any]:
    """A context manager giving a binary stream of ``path`` (see :func:`_open_stream`), starting
    with the head :func:`read_head` took from it when it is a one-shot input."""
    peeked = _take_head(path)
    if peeked is None:
        return _open_stream(path)
    head, rest, stack = peeked
    return contextlib.closing(_HeadThenRest(head, rest, stack))


def read_head(path, size: int = _HEAD_BYTES, *, first_line: bool = False) -> bytes:
    """Up to the first ``size`` bytes of ``path``'s content (decompressed), to guess its format.

    The input is not used up: a regular file is opened again by the next reader; a one-shot input
    (standard input, a pipe, a FIFO, ``<(...)``) is read once, and its next reader gets these bytes
    back first, then the rest of the same open stream. With ``first_line`` (a guess that needs no
    more), reading stops once the head holds its first non-blank line whole: a pipe whose producer
    writes a few records and waits is not held until ``size`` bytes or its end arrive."""
    def take(stream) -> bytes:
        parts, got = [], 0
        read = getattr(stream, "read1", stream.read)  # never more than asked: the rest stays in the stream
        while got < size and (data := read(size - got)):
            parts.append(data)
            got += len(data)
            if first_line and _holds_first_line(b"".join(parts)):
                break
        return b"".join(parts)

    if can_read_twice(path):
        with _open_binary(path) as stream:
            return take(stream)
    kept = _take_head(path)
    if kept is not None:
        with _HEADS_LOCK:
            _HEADS[_head_key(path)] = (*kept, _identity(path))
        return kept[0]
    stack = contextlib.ExitStack()
    try:
        stream = stack.enter_context(_open_binary(path))
        head = take(stream)
    except BaseException:
        stack.close()
        raise
    with _HEADS_LOCK:
        _HEADS[_head_key(path)] = (head, stream, stack, _identity(path))
    return head


def _holds_first_line(head: bytes) -> bool:
    """Whether ``head`` holds its first non-blank line up to the line's end."""
    body = head.lstrip(b" \t\r\n\xef\xbb\xbf")
    return b"\n" in body or b"\r" in body


def open_text(path) -> IO[str]:
    """Open a text file (``.gz`` transparently, ``-`` for stdin) for strict UTF-8 reading."""
    if str(path) == STDIN:
        return _io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8-sig", errors="strict", newline="")
    path = Path(path)
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8-sig", errors="strict", newline="")
    return open(path, encoding="utf-8-sig", errors="strict", newline="")


_BLOCK = 1 << 20  # bytes read and decoded at a time: one decode and one split per block, not per line


def _read_block(stream) -> bytes:
    """Up to ``_BLOCK`` bytes, without waiting for a full block from a pipe (``read1``), so a
    line that has arrived is scored without waiting for the next megabyte."""
    read = getattr(stream, "read1", stream.read)
    return read(_BLOCK)


def _universal_newlines(data: bytes) -> bytes:
    """CRLF and lone CR as LF (a CR that ends a block must be held back first: LF may follow)."""
    return data.replace(b"\r\n", b"\n").replace(b"\r", b"\n") if b"\r" in data else data


def _decode_lines(region: bytes, path, first: int) -> list[str]:
    """The LF-separated lines of ``region`` (complete lines, endings removed), decoded strictly;
    an invalid line is named with its number and the byte offset within it."""
    try:
        # split and decode line by line in C: no bytes object per line, and no wide (UCS-2) copy of
        # the block that decoding it whole and splitting the text would make
        return decode_lines(region)
    except UnicodeDecodeError:
        pass
    for offset, line in enumerate(region.split(b"\n")):
        try:
            line.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputFormatError(display_name(path), first + offset,
                                   f"invalid UTF-8 ({exc.reason} at byte {exc.start})") from None
    raise AssertionError("unreachable: the region decoded line by line")  # pragma: no cover


def iter_line_blocks(path) -> Iterator[tuple[int, list[str]]]:
    """(number of the first line, lines) for consecutive blocks of a file's lines, each at most
    about a megabyte of text: the one line reader (:func:`iter_lines` and :func:`iter_texts` read
    through it), so memory is bounded by a block whatever the file's size.

    Lines end at LF, CRLF or a lone CR (the universal newlines of Python's text files, so old Mac
    files are not read as one line); a leading UTF-8 byte-order mark is dropped (a file holding
    only a BOM has no line). Invalid UTF-8 raises :class:`InputFormatError` naming the line and
    the byte within it.
    """
    lineno = 1
    with _open_binary(path) as stream:
        head, at_end = b"", False
        while len(head) < 3 and not at_end:  # enough bytes to see a byte-order mark, which a pipe may split
            data = _read_block(stream)
            head, at_end = head + data, not data
        # ``partial`` holds the pieces of the line not yet ended, newlines already made LF: kept as a
        # list and joined once the line ends, so a line of any length is copied a bounded number of
        # times (joining a growing bytes object per block made one long line cost its square).
        partial: list[bytes] = []
        held = b""  # a CR that ended the last block: an LF starting the next one belongs to it
        data = head.removeprefix(b"\xef\xbb\xbf")
        while True:
            data = held + data
            held = b"" if at_end or not data.endswith(b"\r") else b"\r"
            data = _universal_newlines(data[:-1] if held else data)
            cut = data.rfind(b"\n")
            if at_end:  # what is left is the last line(s); a final CR or LF ends the last one
                partial.append(data)
                if rest := b"".join(partial):
                    yield lineno, _decode_lines(rest.removesuffix(b"\n"), path, lineno)
                return
            if cut < 0:
                partial.append(data)
            else:  # the complete lines at hand go out before the next read, which may wait on a pipe
                partial.append(data[:cut])
                lines = _decode_lines(b"".join(partial), path, lineno)
                partial = [data[cut + 1:]]
                yield lineno, lines
                lineno += len(lines)
            data = _read_block(stream)
            at_end = not data


def iter_lines(path) -> Iterator[tuple[int, str]]:
    """Yield (line number, line without its ending) (see :func:`iter_line_blocks`): lines end at
    LF, CRLF or a lone CR, a leading byte-order mark is dropped, ``.gz`` files are decompressed and
    ``-`` is standard input.

    Example:

        >>> import os, tempfile
        >>> from qascore.io import iter_lines
        >>> folder = tempfile.TemporaryDirectory()
        >>> path = os.path.join(folder.name, "answers.txt")
        >>> with open(path, "w", encoding="utf-8-sig", newline="") as out:
        ...     _ = out.write("a cat\\r\\nthe dog\\rlast")
        >>> list(iter_lines(path))
        [(1, 'a cat'), (2, 'the dog'), (3, 'last')]
        >>> folder.cleanup()

    :param path: a file (``.gz`` read decompressed), or ``-`` for standard input.
    :returns: an iterator of (1-based line number, line).
    :raises qascore.errors.InputFormatError: for invalid UTF-8, naming the line and the byte.
    """
    for first, lines in iter_line_blocks(path):
        yield from enumerate(lines, first)


def parse_json(text: str | bytes, path, lineno: int | None) -> Any:
    """One JSON value; a syntax error names the file and line."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        raise InputFormatError(display_name(path), lineno, f"invalid JSON: {exc}") from None


class RecordNumber(int):
    """The 1-based position of a record in a JSON array document: errors name it as ``record N``
    where a JSON-lines record names its line."""

    def __format__(self, spec: str) -> str:  # "file: record 3: ..." where a line reads "file:3: ..."
        return f" record {int(self)}"

    def __str__(self) -> str:
        return f"record {int(self)}"

    __repr__ = __str__


def starts_json_array(path) -> bool:
    """Whether ``path``'s content (after a byte-order mark and white space) opens a JSON array."""
    return read_head(path, first_line=True).lstrip(b" \t\r\n\xef\xbb\xbf").startswith(b"[")


def iter_jsonl(path, *, allow_blank: bool = True, array_document: bool = True) -> Iterator[tuple[int, Any]]:
    """Yield (line number, parsed JSON value) for each non-blank line of a JSON-lines file.

    With ``array_document`` (for readers whose records are objects), an input not named
    ``.jsonl`` whose content opens with ``[`` is one JSON array document, read whole: each element
    is a record, numbered by a :class:`RecordNumber` (``record N``) where a line would be.

    Example:

        >>> import os, tempfile
        >>> from qascore.io import iter_jsonl
        >>> folder = tempfile.TemporaryDirectory()
        >>> path = os.path.join(folder.name, "answers.jsonl")
        >>> with open(path, "w") as out:
        ...     _ = out.write('{"id": 1, "answer": "a cat"}\\n\\n{"id": 2, "answer": "a dog"}\\n{"id": 3,\\n')
        >>> records = iter_jsonl(path)
        >>> next(records), next(records)
        ((1, {'id': 1, 'answer': 'a cat'}), (3, {'id': 2, 'answer': 'a dog'}))
        >>> next(records)
        Traceback (most recent call last):
        qascore.errors.InputFormatError: ...answers.jsonl:4: invalid JSON: ...
        >>> folder.cleanup()

    :param path: a JSON-lines file (``.gz`` read decompressed), or ``-`` for standard input.
    :param allow_blank: skip blank lines (otherwise a blank line is an error).
    :param array_document: read a JSON array document too (see above).
    :returns: an iterator of (line number, value).
    :raises qascore.errors.InputFormatError: for invalid JSON, invalid UTF-8 or (without
        ``allow_blank``) a blank line, naming the file and line.
    """
    named_jsonl = str(path).removesuffix(".gz").lower().endswith(".jsonl")
    if array_document and not named_jsonl and starts_json_array(path):
        for number, value in enumerate(_json_array(path), 1):
            yield RecordNumber(number), value
        return
    for lineno, line in iter_lines(path):
        if not line.strip():
            if allow_blank:
                continue
            raise InputFormatError(display_name(path), lineno, "blank line, expected a JSON value")
        yield lineno, parse_json(line, path, lineno)


def iter_jsonl_blocks(path, keep: Callable[[int, Any], Any], *, allow_blank: bool = True) -> Iterator[list]:
    """:func:`iter_jsonl` a block of lines at a time (a JSON array document: all at once): a
    non-empty list of ``keep(line number, value)`` per block, so a record's parsed object dies as
    soon as ``keep`` has taken what it needs (a block of live dicts would cost the garbage
    collector more than the parsing)."""
    named_jsonl = str(path).removesuffix(".gz").lower().endswith(".jsonl")
    if not named_jsonl and starts_json_array(path):
        if kept := [keep(RecordNumber(number), value) for number, value in enumerate(_json_array(path), 1)]:
            yield kept
        return
    for first, lines in iter_line_blocks(path):
        kept = []
        for lineno, line in enumerate(lines, first):
            if not line.strip():
                if allow_blank:
                    continue
                raise InputFormatError(display_name(path), lineno, "blank line, expected a JSON value")
            kept.append(keep(lineno, parse_json(line, path, lineno)))
        if kept:
            yield kept


def _json_array(path) -> list:
    document = read_json(path)
    if not isinstance(document, list):  # pragma: no cover - it opened with "["
        raise InputFormatError(display_name(path), None, "expected a JSON array of records")
    return document


def read_json(path) -> Any:
    """A whole JSON document (``-`` for stdin; ``.gz`` read decompressed).

    Example:

        >>> import os, tempfile
        >>> from qascore.io import read_json
        >>> folder = tempfile.TemporaryDirectory()
        >>> path = os.path.join(folder.name, "settings.json")
        >>> with open(path, "w") as out:
        ...     _ = out.write('{"answers": ["a cat", "a dog"], "alpha": 1.0}')
        >>> read_json(path)
        {'answers': ['a cat', 'a dog'], 'alpha': 1.0}
        >>> folder.cleanup()

    :param path: a JSON file, or ``-`` for standard input.
    :returns: the parsed value.
    :raises qascore.errors.InputFormatError: for invalid JSON, naming the file.
    """
    with _open_binary(path) as stream:
        data = stream.read()
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    return parse_json(data, path, None)


def require_field(record, field: str, types, path, lineno: int):
    """Return ``record[field]`` checked against ``types``; a missing or mistyped field names the line."""
    # the path's display name only on an error: making it costs more than checking a record
    if not isinstance(record, dict):
        raise InputFormatError(display_name(path), lineno, f"expected a JSON object, got {type(record).__name__}")
    if field not in record:
        raise InputFormatError(display_name(path), lineno, f"missing field {field!r}")
    value = record[field]
    if not isinstance(value, types):
        names = types.__name__ if isinstance(types, type) else "/".join(t.__name__ for t in types)
        raise InputFormatError(display_name(path), lineno,
                               f"field {field!r} must be {names}, got {type(value).__name__}")
    return value


_SUFFIX_FORMATS = {".jsonl": "jsonl", ".json": "json", ".tsv": "tsv", ".csv": "csv", ".txt": "lines"}


def guess_format(path) -> str:
    """``auto`` resolved: by suffix (.jsonl -> jsonl, .json -> json, .tsv -> tsv, .csv -> csv,
    .txt -> lines, under an optional .gz); any other name (``-``, a pipe, a FIFO, no suffix) by
    its content: a first line holding a JSON object is ``jsonl``, content opening with ``[`` a
    JSON array (``json``), anything else plain ``lines``. The content is read with
    :func:`read_head`, so a one-shot input loses nothing to the guess.

    Example:

        >>> import os, tempfile
        >>> from qascore.io import guess_format
        >>> guess_format("run.jsonl.gz"), guess_format("qrels.tsv"), guess_format("answers.txt")
        ('jsonl', 'tsv', 'lines')
        >>> folder = tempfile.TemporaryDirectory()
        >>> path = os.path.join(folder.name, "run")  # no suffix: the content decides
        >>> with open(path, "w") as out:
        ...     _ = out.write('{"prediction": "a cat"}\\n')
        >>> guess_format(path)
        'jsonl'
        >>> folder.cleanup()

    :param path: a file name (not read when its suffix tells), or ``-`` for standard input.
    :returns: ``lines``, ``jsonl``, ``json``, ``tsv`` or ``csv``.
    """
    suffix = Path(str(path).removesuffix(".gz")).suffix.lower() if str(path) != STDIN else ""
    if suffix in _SUFFIX_FORMATS:
        return _SUFFIX_FORMATS[suffix]
    head = read_head(path, first_line=True).lstrip(b" \t\r\n\xef\xbb\xbf")
    if head.startswith(b"["):
        return "json"
    if head.startswith(b"{"):
        first = head.split(b"\n", 1)[0]
        try:
            return "jsonl" if isinstance(orjson.loads(first), dict) else "lines"
        except orjson.JSONDecodeError:
            return "lines"
    return "lines"


def looks_like_header(cells: Sequence[str], wanted: str | None = None) -> bool:
    """True when a TSV line names columns: it holds the wanted column's name or a common field name."""
    names = {cell.strip().lower() for cell in cells}
    return (wanted is not None and wanted.lower() in names) or bool(names & _HEADER_WORDS)


def _tsv_column(path, column: str, header: bool | None, cells: list[str], lineno: int,
                fmt: str = "tsv") -> tuple[int, bool]:
    """The 0-based index of ``column`` and whether the first line is a header to skip."""
    name = display_name(path)
    if header is None and looks_like_header(cells, None if column.isdigit() else column):
        raise InputFormatError(name, lineno, "the first line looks like a header; pass --header to use it "
                                             "as column names or --no-header to score it as data")
    if header and not column.isdigit():
        if column not in cells:
            raise InputFormatError(name, lineno, f"no column named {column!r} in the header {cells}")
        return cells.index(column), True
    if not column.isdigit():
        raise InputFormatError(name, lineno, f"{fmt.upper()} column {column!r} must be a 0-based index "
                                             "(or use --header)")
    return int(column), bool(header)


def _csv_rows(path) -> Iterator[tuple[int, list[str]]]:
    """(line number where the record starts, cells) of a CSV file (Python's csv module, excel
    dialect, strict: an unclosed quote is an error); a quoted cell may hold line breaks."""
    reader = csv.reader((line + "\n" for _, line in iter_lines(path)), strict=True)
    start = 1
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise InputFormatError(display_name(path), reader.line_num, f"invalid CSV: {exc}") from None
        yield start, row
        start = reader.line_num + 1


def iter_texts(path, fmt: str = "auto", field: str | None = None, *, tsv_header: bool | None = None,
               allow_lists: bool = False, default_field: str = "0",
               field_option: str = "field") -> Iterator[str | list[str]]:
    """The texts of one file in record order (see :func:`iter_text_blocks`, which gives them a
    block at a time, and describes every format and setting).

    Example:

        >>> import os, tempfile
        >>> from qascore.io import iter_texts
        >>> folder = tempfile.TemporaryDirectory()
        >>> jsonl, tsv = os.path.join(folder.name, "run.jsonl"), os.path.join(folder.name, "run.tsv")
        >>> with open(jsonl, "w") as out:
        ...     _ = out.write('{"id": 1, "prediction": "a cat"}\\n{"id": 2, "prediction": ""}\\n')
        >>> list(iter_texts(jsonl, field="prediction"))
        ['a cat', '']
        >>> with open(tsv, "w") as out:
        ...     _ = out.write("id\\tprediction\\n1\\ta cat\\n2\\ta dog\\n")
        >>> list(iter_texts(tsv, field="prediction", tsv_header=True))
        ['a cat', 'a dog']
        >>> folder.cleanup()

    :param path: a file (``.gz`` read decompressed), or ``-`` for standard input.
    :param fmt: ``auto`` (:func:`guess_format`), ``lines``, ``jsonl``, ``json``, ``tsv`` or ``csv``.
    :param field: the JSON field, or the TSV / CSV column (a 0-based index, or a header name with
        ``tsv_header=True``); None: ``default_field``.
    :param tsv_header: whether the first line names the columns (None: an error when it looks like it does).
    :param allow_lists: accept a non-empty list of strings in a JSON field (several references).
    :param default_field: the field or column when ``field`` is None.
    :param field_option: the name of the ``field`` setting in messages (a command's option).
    :returns: an iterator of texts (or lists of texts, with ``allow_lists``).
    :raises ValueError: for an unknown format.
    :raises qascore.errors.InputFormatError: for a missing or mistyped field, too few columns, a
        header that is not declared, a setting that cannot apply to the format, or invalid JSON or
        UTF-8, naming the file and line.
    """
    for block in iter_text_blocks(path, fmt, field, tsv_header=tsv_header, allow_lists=allow_lists,
                                  default_field=default_field, field_option=field_option):
        yield from block


def iter_text_blocks(path, fmt: str = "auto", field: str | None = None, *, tsv_header: bool | None = None,
                     allow_lists: bool = False, default_field: str = "0",
                     field_option: str = "field") -> Iterator[list]:
    """The texts of one file in record order, as consecutive non-empty lists: for plain lines a
    block of lines as read (about a megabyte, or what a pipe has delivered), so a caller that
    chunks them (:func:`aligned_chunks` with ``blocks=True``) does no Python work per line; JSON
    lines and TSV a block's records, a JSON array document all of them, CSV one record a list.

    ``lines``: every line is one text (an empty line is an empty text); a first line that looks
    like a header (a lone column name such as ``prediction``, or tab- or comma-separated names)
    is an error unless ``tsv_header`` says it is one (True: skipped) or is not (False: scored).
    ``jsonl`` / ``json``: ``field`` of each object of JSON lines or of a JSON array document (with
    ``allow_lists``, a non-empty list of strings too). ``tsv`` / ``csv``: the column ``field``, a
    0-based index or, with ``tsv_header=True``, a header name; with ``tsv_header=None`` a first
    line that looks like a header is an error, so a header is never scored as data by accident.

    ``field`` None means "not given": ``default_field`` is used. A setting that cannot apply to
    the format (a field for plain lines, a header setting for JSON) is an error naming
    ``field_option``, never ignored.
    """
    fmt = guess_format(path) if fmt == "auto" else fmt
    name = display_name(path)
    if fmt not in FORMATS[1:]:
        raise ValueError(f"unknown format {fmt!r} (expected one of {', '.join(FORMATS)})")
    if fmt == "lines":
        if field is not None:
            raise InputFormatError(name, None, f"{field_option} {field!r} cannot apply: this input is read as "
                                               "plain lines, one text a line (name its format with --format "
                                               "jsonl, json, tsv or csv)")
        yield from _plain_line_blocks(path, tsv_header)
        return
    field = default_field if field is None else field
    if fmt in ("jsonl", "json"):
        if tsv_header is not None:
            raise InputFormatError(name, None, "--header / --no-header cannot apply: this input is read as JSON, "
                                               "whose records name their fields")
        types = (str, list) if allow_lists else str

        def text_of(lineno, record):
            value = require_field(record, field, types, path, lineno)
            if isinstance(value, list) and (not value or not all(isinstance(v, str) for v in value)):
                raise InputFormatError(name, lineno, f"field {field!r} must be a non-empty list of strings")
            return value

        yield from iter_jsonl_blocks(path, text_of, allow_blank=False)
        return
    # TSV: the rows of a block of lines, split one at a time as its column is taken (a block of live
    # cell lists would cost the garbage collector more than the splitting); CSV (a quoted cell may
    # span lines): a row a block
    rows = (([row] for row in _csv_rows(path)) if fmt == "csv" else
            (((n, line.split("\t")) for n, line in enumerate(lines, first)) for first, lines in iter_line_blocks(path)))
    what = "comma-separated" if fmt == "csv" else "tab-separated"
    column = -1
    for block in rows:
        texts = []
        for lineno, cells in block:
            if column < 0:
                column, skip = _tsv_column(path, field, tsv_header, cells, lineno, fmt)
                if skip:
                    continue
            if column >= len(cells):
                raise InputFormatError(name, lineno, f"expected at least {column + 1} {what} columns, got {len(cells)}")
            texts.append(cells[column])
        if texts:
            yield texts


def text_input_formats(paths: Sequence, fmt: str, header: bool | None) -> list[tuple[str, bool | None]]:
    """(format, header setting) for each of several aligned inputs read by :func:`iter_texts` with
    one ``--format`` and one ``--header`` setting: ``auto`` resolved per input, and the header
    setting handed only to the inputs it applies to (not JSON). A header setting that applies to
    none of them is an error, not ignored."""
    formats = [guess_format(path) if fmt == "auto" else fmt for path in paths]
    if header is not None and all(f in ("jsonl", "json") for f in formats):
        names = ", ".join(display_name(path) for path in paths)
        raise ValueError(f"--header / --no-header cannot apply: every input ({names}) is read as JSON, "
                         "whose records name their fields")
    return [(f, None if f in ("jsonl", "json") else header) for f in formats]


def _plain_line_blocks(path, header: bool | None) -> Iterator[list[str]]:
    first = True
    for lineno, lines in iter_line_blocks(path):
        if first and lines:
            first = False
            line = lines[0]
            cells = line.split("\t") if "\t" in line else line.split(",")
            names_only = all(len(cell.split()) == 1 for cell in cells)  # "id,prediction", not prose
            if header is None and names_only and looks_like_header(cells):
                raise InputFormatError(display_name(path), lineno,
                                       "the first line looks like a header; pass --header to skip it, "
                                       "--no-header to score it as text, or --format tsv|csv to read columns")
            if header:
                lines = lines[1:]
        if lines:
            yield lines


def chunked(items: Iterable, size: int) -> Iterator[list]:
    """Consecutive lists of at most ``size`` items (the last may be shorter; none is empty).

    Example:

        >>> from qascore.io import chunked
        >>> list(chunked(range(5), 2))
        [[0, 1], [2, 3], [4]]
        >>> list(chunked(range(5), 0))
        Traceback (most recent call last):
        ValueError: chunk size must be an integer >= 1, got 0

    :param items: any iterable, read lazily.
    :param size: the most items a chunk holds.
    :returns: an iterator of lists.
    :raises ValueError: for a size that is not an integer >= 1 (when iteration starts).
    """
    check_chunk_size(size)
    iterator = iter(items)
    while chunk := list(itertools.islice(iterator, size)):
        yield chunk


def check_chunk_size(size: int) -> int:
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise ValueError(f"chunk size must be an integer >= 1, got {size!r}")
    return size


def aligned_chunks(streams: Sequence[Iterable], paths: Sequence, size: int, *,
                   blocks: bool = False) -> Iterator[list[list]]:
    """Consecutive chunks of aligned inputs: one list per stream, all of one length, at most
    ``size`` each; only one chunk is held at a time. Streams of different lengths raise
    ``ValueError("A has N examples but B has M")`` once the shorter one ends (the longer is read
    to its end, without keeping it, to count it).

    With ``blocks`` each stream yields lists of items (:func:`iter_text_blocks`), cut and joined
    into chunks by list slicing, without Python work per item; a stream then holds, beyond the
    chunk, at most the rest of the block it last read."""
    check_chunk_size(size)
    readers = [_BlockReader(stream) if blocks else _ItemReader(stream) for stream in streams]
    done = 0
    while True:
        chunk = [reader.take(size) for reader in readers]
        n = len(chunk[0])
        if any(len(part) != n for part in chunk):
            counts = [done + len(part) + reader.count_rest() for part, reader in zip(chunk, readers)]
            other = next(j for j, count in enumerate(counts) if count != counts[0])
            raise ValueError(f"{display_name(paths[0])} has {counts[0]} examples but "
                             f"{display_name(paths[other])} has {counts[other]}")
        if not n:
            return
        done += n
        yield chunk


@contextlib.contextmanager
def read_ahead(items: Iterable) -> Iterator[Iterator]:
    """``items`` produced one ahead by a background thread: while the caller works on an item
    (scoring a chunk in a kernel that releases the GIL), the next one is read, decoded and split.

    At most one item waits beyond the one the caller holds. An exception of ``items`` is raised
    in the caller when it asks for the item that failed, as without the thread. Leaving the block
    (at the end, on an error, on a signal) stops the thread after the item it is reading, and
    ``items`` is closed in that thread."""
    handoff: queue.Queue = queue.Queue(maxsize=1)
    stop = threading.Event()
    done = object()

    def offer(entry) -> bool:
        while not stop.is_set():
            try:
                handoff.put(entry, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        iterator = iter(items)
        try:
            for item in iterator:
                if not offer((item, None)):
                    return
            offer((done, None))
        except BaseException as exc:  # handed to the caller, raised there
            offer((done, exc))
        finally:
            close = getattr(iterator, "close", None)
            if close is not None:
                close()

    def consume() -> Generator[Any, None, None]:
        while True:
            item, error = handoff.get()
            if error is not None:
                raise error
            if item is done:
                return
            yield item

    worker = threading.Thread(target=produce, name="qascore-read-ahead", daemon=True)
    worker.start()
    consumer = consume()
    try:
        yield consumer
    finally:
        stop.set()
        consumer.close()


class _ItemReader:
    """Chunks of a stream of items."""

    def __init__(self, stream: Iterable) -> None:
        self._items = iter(stream)

    def take(self, size: int) -> list:
        return list(itertools.islice(self._items, size))

    def count_rest(self) -> int:
        return sum(1 for _ in self._items)


class _BlockReader:
    """Chunks of a stream of lists of items: slices of the block at hand, joined across blocks."""

    def __init__(self, stream: Iterable[list]) -> None:
        self._blocks = iter(stream)
        self._block: list = []
        self._at = 0  # items of ``_block`` already handed out

    def take(self, size: int) -> list:
        block, at = self._block, self._at
        if at == 0 and len(block) == size:  # the block is the chunk: no copy
            self._block = []
            return block
        out = block[at:at + size]
        self._at = at + len(out)
        while len(out) < size:
            more: list | None = next(self._blocks, None)
            if more is None:
                self._block, self._at = [], 0
                break
            need = size - len(out)
            if not out and len(more) <= need:
                out, self._block, self._at = more, [], 0
            else:
                out += more[:need]
                self._block, self._at = more, min(need, len(more))
        return out

    def count_rest(self) -> int:
        return len(self._block) - self._at + sum(len(block) for block in self._blocks)


def can_read_twice(path) -> bool:
    """Whether ``path`` can be read again from its start: a regular file, not standard input, a
    pipe or a FIFO (``<(...)`` in a shell)."""
    return str(path) != STDIN and Path(path).is_file()


class KeyedJoin:
    """The records of one keyed file (``read(path)`` yields ``(key, record)``, each key once)
    matched to the keys of another input taken in that input's order, reading as little ahead as
    the two orders allow.

    A file is read twice: first its keys alone (so a key it lacks is known at once, without
    reading to its end), then its records, each kept only until its key is asked for: files in
    the same order hold one record at a time, files in different orders hold the records read
    ahead. Standard input, a pipe or a FIFO cannot be read twice: from them every record is held.
    """

    def __init__(self, read: Callable[[Any], Iterable[tuple[Any, Any]]], path) -> None:
        self.path = path
        if not can_read_twice(path):
            self._waiting = dict(read(path))
            self._keys = set(self._waiting)
            self._records: Iterator[tuple[Any, Any]] = iter(())
        else:
            self._keys = {key for key, _ in read(path)}
            self._waiting = {}
            self._records = iter(read(path))
        self.matched = 0

    def pop(self, key) -> Any:
        """The record of ``key`` (None when the file has none); ask for each key at most once."""
        if key not in self._keys:
            return None
        self.matched += 1
        while key not in self._waiting:
            found, record = next(self._records, (None, None))
            if record is None:
                raise InputFormatError(display_name(self.path), None, f"changed while being read: {key!r} is gone")
            self._waiting[found] = record
        return self._waiting.pop(key)

    @property
    def unmatched(self) -> int:
        """Records whose key was never asked for (so far)."""
        return len(self._keys) - self.matched


def dumps(value: Any) -> str:
    """Strict JSON text of ``value``: NaN and infinities as ``null``, numpy scalars and arrays as numbers.

    Example:

        >>> import numpy as np
        >>> from qascore.io import dumps
        >>> dumps({"f": np.float64(0.5), "ids": np.arange(2), "r": float("nan")})
        '{"f":0.5,"ids":[0,1],"r":null}'

    :param value: dicts, lists, strings, numbers, numpy scalars and arrays.
    :returns: one line of JSON.
    :raises TypeError: for a value orjson cannot write (``orjson.JSONEncodeError``).
    """
    return orjson.dumps(value, option=_JSON_OPTIONS).decode("utf-8")


def write_jsonl(records: Iterable[Any], out: IO[str]) -> None:
    """One strict JSON value a line (:func:`dumps`).

    Example:

        >>> import io
        >>> from qascore.io import write_jsonl
        >>> out = io.StringIO()
        >>> write_jsonl([{"id": 1, "f": 0.5}, {"id": 2, "f": float("inf")}], out)
        >>> print(out.getvalue(), end="")
        {"id":1,"f":0.5}
        {"id":2,"f":null}

    :param records: the values to write.
    :param out: a text stream (such as :func:`open_output` gives).
    """
    for record in records:
        out.write(dumps(record))
        out.write("\n")


def number_rows(record: Mapping[str, Any], end: bytes = b"\n") -> bytes:
    """One JSON object per example, each followed by ``end``, from a record whose leaves are 1-D
    numpy arrays of numbers (one entry per example; nested mappings nest objects): byte for byte
    ``orjson.dumps`` of each example's dict, built in one compiled pass without the dicts."""
    pieces: list[bytes] = []
    columns: list[bytes] = []
    pieces.append(_object_template(record, b"", pieces, columns) + end)
    return fill_rows(pieces, columns)


def _object_template(mapping: Mapping[str, Any], text: bytes, pieces: list[bytes], columns: list[bytes]) -> bytes:
    """Append to ``pieces`` the JSON text before each leaf of ``mapping`` and to ``columns`` each
    leaf's JSON array; return the text after the last leaf. (A module function, not a recursive
    closure: a closure's reference cycle would keep a chunk's columns alive until the next
    garbage collection.)"""
    text += b"{"
    for i, (key, value) in enumerate(mapping.items()):
        text += (b"," if i else b"") + orjson.dumps(key) + b":"
        if isinstance(value, Mapping):
            text = _object_template(value, text, pieces, columns)
            continue
        array = np.asarray(value)
        if array.ndim != 1 or array.dtype.kind not in "biuf":
            raise TypeError(f"number_rows: {key!r} must be a 1-D numeric array, got {array.dtype} {array.shape}")
        pieces.append(text)
        columns.append(orjson.dumps(np.ascontiguousarray(array), option=_JSON_OPTIONS))
        text = b""
    return text + b"}"


def write_bytes(out: IO[str], data: bytes) -> None:
    """UTF-8 ``data`` to a text stream from :func:`open_output`, straight to its byte buffer when
    it has one (no decode and re-encode of a chunk of rows)."""
    buffer = getattr(out, "buffer", None)
    if buffer is None:
        out.write(data.decode("utf-8"))
        return
    out.flush()
    buffer.write(data)


class WriteBehind:
    """Output work (formatting a chunk's rows, writing them) done in order by one background
    thread while the caller goes on with the next chunk: the compiled row formatting and the
    write itself run without the GIL, beside the scoring of the next chunk.

    At most one piece waits: :meth:`submit` first finishes the one before it, so memory holds one
    chunk's rows. An error of a piece is raised by the next :meth:`submit` or by :meth:`finish`,
    in the caller; leaving the ``with`` block waits for the piece under way either way, so the
    output is never closed under it."""

    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="qascore-write")
        self._pending: Future | None = None

    def submit(self, work: Callable[[], Any]) -> None:
        self.finish()
        self._pending = self._pool.submit(work)

    def finish(self) -> None:
        """Wait for the piece under way; raise its error."""
        pending, self._pending = self._pending, None
        if pending is not None:
            pending.result()

    def __enter__(self) -> WriteBehind:
        return self

    def __exit__(self, kind, error, traceback) -> None:
        try:
            if error is None:
                self.finish()
            elif self._pending is not None:
                wait([self._pending])  # an error is already on its way: this one's is dropped
        finally:
            self._pool.shutdown(wait=True)


class RowSpool:
    """Output rows that must follow a summary known only after them (a JSON document or a text
    report that names the aggregate first): kept in an unnamed temporary file, not in memory,
    and copied out after the summary."""

    def __init__(self, separator: bytes = b"") -> None:
        self.separator, self.rows = separator, 0
        self._file = tempfile.TemporaryFile()

    def write(self, rows: Iterable[bytes]) -> None:
        """Append rows (each its own bytes, joined by ``separator``)."""
        for row in rows:
            self._file.write((self.separator if self.rows else b"") + row)
            self.rows += 1

    def copy_to(self, out: IO[str]) -> None:
        """Write every row to ``out`` (a stream from :func:`open_output`) and drop the file."""
        self._file.seek(0)
        while block := self._file.read(1 << 20):
            write_bytes(out, block)
        self._file.close()


def write_document(out: IO[str], head: Mapping[str, Any], key: str, rows: RowSpool | None) -> None:
    """One JSON document: ``head``'s entries, then (when ``rows`` is given) its rows as the array
    ``key``, byte for byte ``dumps({**head, key: [...]})`` without holding the rows."""
    if rows is None:
        out.write(dumps(head) + "\n")
        return
    out.write(dumps(head)[:-1] + ("," if head else "") + f"{dumps(key)}:[")
    rows.copy_to(out)
    out.write("]}\n")


# (st_dev, st_ino) -> the path as the user gave it, of every input of the run in progress (set by
# :func:`protect_inputs`): :func:`open_output` refuses to write over one of them.
_INPUTS: dict[tuple[int, int], str] = {}
# errno values that come from writing a file (and so from the output) when an OSError names none.
_WRITE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO, errno.EROFS})


@contextlib.contextmanager
def protect_inputs(paths: Iterable) -> Iterator[None]:
    """Within the block, :func:`open_output` refuses to write to any of the regular files
    ``paths`` (compared by device and inode, so a hard link or a symlink to an input is caught);
    paths that are not regular files (``-``, pipes, missing files) are not protected."""
    added = {}
    for path in paths:
        if path is None or str(path) == STDIN:
            continue
        try:
            info = os.stat(path)
        except (OSError, ValueError):
            continue
        if stat.S_ISREG(info.st_mode) and (info.st_dev, info.st_ino) not in _INPUTS:
            added[info.st_dev, info.st_ino] = str(path)
    _INPUTS.update(added)
    try:
        yield
    finally:
        for key in added:
            _INPUTS.pop(key, None)


def check_output_path(path) -> os.stat_result | None:
    """What stands at an output ``path`` (following symlinks; ``None`` if nothing): an error for
    a directory or for one of the inputs under :func:`protect_inputs`."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return None
    if stat.S_ISDIR(info.st_mode):
        raise IsADirectoryError(errno.EISDIR, "Is a directory, not a file to write", display_name(path))
    check_not_input(path, info)
    return info


def check_not_input(path, info: os.stat_result | None = None) -> None:
    """ValueError when the output ``path`` is one of the regular files under
    :func:`protect_inputs` (the same file by device and inode: a hard link or symlink too)."""
    if path is None or str(path) == STDIN:
        return
    if info is None:
        try:
            info = os.stat(path)
        except (OSError, ValueError):
            return
    source = _INPUTS.get((info.st_dev, info.st_ino)) if stat.S_ISREG(info.st_mode) else None
    if source is not None:
        same = "" if os.path.abspath(source) == os.path.abspath(path) else f" ({display_name(source)})"
        raise ValueError(f"{display_name(path)}: the output is one of the inputs{same}; "
                         "write the results to another file")


def _umask() -> int:
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)  # no /proc: read it the only other way there is, and put it back
    os.umask(mask)
    return mask


def _match_file(fd: int, existing: os.stat_result | None) -> None:
    """Give the new file ``fd`` the owner, group and mode of the file it replaces, or, for a new
    file, the mode the umask allows (mkstemp's is 0600)."""
    if existing is None:
        os.fchmod(fd, 0o666 & ~_umask())
        return
    for uid in (existing.st_uid, -1):  # only root may give a file away; a group we belong to is ours
        try:
            os.fchown(fd, uid, existing.st_gid)
            break
        except PermissionError:
            continue
    os.fchmod(fd, stat.S_IMODE(existing.st_mode))


def _text_stream(raw, path, binary: bool = False):
    if binary:
        return contextlib.nullcontext(raw)
    if str(path).endswith(".gz"):
        return gzip.open(raw, "wt", encoding="utf-8", newline="\n")
    return _io.TextIOWrapper(raw, encoding="utf-8", newline="\n", write_through=False)


def _naming(exc: OSError, path, tmp: str | None = None) -> OSError:
    """``exc`` naming the user's ``path``, never the temporary name (and naming it at all when a
    failed write names no file)."""
    if (exc.filename is not None and exc.filename == tmp) or (exc.filename is None and exc.errno in _WRITE_ERRNOS):
        return type(exc)(exc.errno, exc.strerror, display_name(path))
    return exc


@contextlib.contextmanager
def open_output(path=None, *, binary: bool = False) -> Iterator[IO[Any]]:
    """A text stream for results (UTF-8, gzip-compressed when ``path`` ends in ``.gz``), or with
    ``binary`` a byte stream written as it is (a PNG, a checkpoint).

    * ``None`` or ``-``, or a path that is this process's standard output (``/dev/stdout``):
      standard output;
    * a regular file, or nothing yet (a symlink is followed: its target is written and the link
      kept): a temporary file beside it that replaces it only when the block finishes without an
      error, and is removed otherwise (an interrupt included); the file keeps the mode, owner and
      group of the one it replaces, and a new one gets the mode the umask allows;
    * anything else (a device such as ``/dev/null``, a FIFO, a terminal): written straight through;
    * a directory, or one of the inputs (:func:`protect_inputs`): an error, before anything is
      written. Errors name ``path`` as given, never the temporary name.

    Example:

        >>> import os, tempfile
        >>> from qascore.io import open_output, write_jsonl
        >>> folder = tempfile.TemporaryDirectory()
        >>> path = os.path.join(folder.name, "scores.jsonl")
        >>> with open_output(path) as out:
        ...     write_jsonl([{"id": 1, "f": 0.5}], out)
        >>> with open_output(path) as out:
        ...     _ = out.write("half a line")
        ...     raise RuntimeError("the run failed")
        Traceback (most recent call last):
        RuntimeError: the run failed
        >>> open(path).read(), os.listdir(folder.name)  # the finished file, and no partial one
        ('{"id":1,"f":0.5}\\n', ['scores.jsonl'])
        >>> folder.cleanup()

    :param path: the output file (``.gz``: gzip-compressed), or None / ``-`` for standard output.
    :param binary: a byte stream instead of UTF-8 text.
    :returns: a context manager giving the stream.
    :raises ValueError: when ``path`` is one of the inputs under :func:`protect_inputs`.
    :raises OSError: for a directory or a file that cannot be written, naming ``path``.
    """
    existing = None if path is None or str(path) == STDIN else check_output_path(path)
    if path is None or str(path) == STDIN or (existing is not None and _is_stdout(existing)):
        stdout: Any = standard_output()  # a TextIO, whose .buffer takes bytes
        stdout = stdout.buffer if binary else stdout
        yield stdout
        stdout.flush()
        return
    if existing is not None and not stat.S_ISREG(existing.st_mode):
        try:
            with open(path, "wb") as raw, _text_stream(raw, path, binary) as stream:
                yield stream
        except OSError as exc:
            raise _naming(exc, path) from None
        return
    target = Path(os.path.realpath(path))
    tmp = ""
    try:
        # Not mkstemp: a signal between its creating the file and returning the name would leave
        # the file behind. Here the name is known before the file exists, so every exit removes it.
        for _ in range(100):
            tmp = str(target.with_name(f".{target.name}.{secrets.token_hex(4)}.part"))
            try:
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600)
                break
            except FileExistsError:
                tmp = ""  # another run's: not ours to remove
        else:
            raise FileExistsError(errno.EEXIST, "no free temporary name beside it", display_name(path))
        _match_file(fd, existing)
        with open(fd, "wb") as raw, _text_stream(raw, path, binary) as stream:
            yield stream
        os.replace(tmp, target)
    except BaseException as exc:
        if tmp:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        if isinstance(exc, OSError):
            renamed = _naming(exc, path, tmp)
            if renamed is not exc:
                raise renamed from None
        raise


@contextlib.contextmanager
def output_directory(path) -> Iterator[Path]:
    """The folder ``path`` for a command's output files, created with any missing parents; when
    the block fails (an error, a signal) the folders it created are removed again if still empty,
    so an interrupted run leaves no trace (the files in it are written by :func:`open_output`)."""
    path = Path(path)
    created = []
    probe = path
    while not os.path.lexists(probe) and probe.parent != probe:
        created.append(probe)  # deepest first
        probe = probe.parent
    try:
        path.mkdir(parents=True, exist_ok=True)
        yield path
    except BaseException:
        for folder in created:
            with contextlib.suppress(OSError):
                folder.rmdir()
        raise


def _is_stdout(info: os.stat_result) -> bool:
    try:
        out = os.fstat(sys.stdout.fileno())
    except (AttributeError, OSError, ValueError):  # no stdout, or one replaced by a non-file
        return False
    return (out.st_dev, out.st_ino) == (info.st_dev, info.st_ino)


# ---------------------------------------------------------------- TREC qrels


class Qrel(NamedTuple):
    """One line of a TREC qrels file, ``query-id iteration doc-id relevance``. The fields and their
    order are ``ir_measures.Qrel``'s, so ir_measures and PyTerrier take these rows as they are.
    trec_eval ignores ``iteration`` (written ``0``); TREC's diversity qrels hold a subtopic there.

    Example:

        >>> from qascore.io import Qrel
        >>> Qrel("q1", "d1", 2)
        Qrel(query_id='q1', doc_id='d1', relevance=2, iteration='0')

    :ivar query_id: the query (or topic) id.
    :ivar doc_id: the document (or nugget, or passage) id.
    :ivar relevance: the integer grade.
    :ivar iteration: trec_eval's second column.
    """

    query_id: str
    doc_id: str
    relevance: int
    iteration: str = "0"


def _qrels_field(value, what: str, where: str) -> str:
    text = str(value)
    if not text or any(c.isspace() for c in text):
        raise ValueError(f"{where}: {what} {text!r} must be non-empty without whitespace (qrels columns are "
                         "separated by whitespace)")
    return text


def read_qrels(path) -> list[Qrel]:
    """The lines of a TREC qrels file in file order (blank lines aside).

    Each line is ``query-id iteration doc-id relevance`` separated by whitespace, the relevance an
    integer (negative allowed, as trec_eval reads it). A line with another number of columns, a
    relevance that is not an integer, or a (query-id, iteration, doc-id) seen before is an
    :class:`~qascore.errors.InputFormatError` naming the file and line.

    Example:

        >>> import os, tempfile
        >>> from qascore.io import read_qrels
        >>> folder = tempfile.TemporaryDirectory()
        >>> path = os.path.join(folder.name, "qrels.txt")
        >>> with open(path, "w") as out:
        ...     _ = out.write("q1 0 d1 2\\nq1 0 d2 0\\n")
        >>> read_qrels(path)[0]
        Qrel(query_id='q1', doc_id='d1', relevance=2, iteration='0')
        >>> folder.cleanup()

    :param path: a qrels file (``.gz`` read decompressed), or ``-`` for standard input.
    :returns: a :class:`Qrel` per line.
    :raises qascore.errors.InputFormatError: for a bad line or a repeated document, naming the file and line.
    """
    rows: list[Qrel] = []
    seen: dict[tuple[str, str, str], int] = {}
    for lineno, line in iter_lines(path):
        cols = line.split()
        if not cols:
            continue
        if len(cols) != 4:
            raise InputFormatError(display_name(path), lineno,
                                   f"expected 4 columns 'query-id iteration doc-id relevance', got {len(cols)}")
        query_id, iteration, doc_id, relevance = cols
        try:
            grade = int(relevance)
        except ValueError:
            raise InputFormatError(display_name(path), lineno,
                                   f"relevance must be an integer, got {relevance!r}") from None
        first = seen.setdefault((query_id, iteration, doc_id), lineno)
        if first != lineno:
            raise InputFormatError(display_name(path), lineno, f"document {doc_id!r} of query {query_id!r} "
                                   f"(iteration {iteration!r}) repeats line {first}")
        rows.append(Qrel(query_id, doc_id, grade, iteration))
    return rows


def write_qrels(rows: Iterable, path) -> None:
    """Write rows with the fields ``query_id``, ``doc_id``, ``relevance`` and optionally
    ``iteration`` (``0`` when absent) as a TREC qrels file, one ``query-id iteration doc-id
    relevance`` line each, in the order given (:func:`read_qrels` reads them back equal). An id
    that is empty or holds whitespace, or a relevance that is not an integer, is a ValueError
    naming the row, raised before the file is replaced.

    Example:

        >>> import os, tempfile
        >>> from qascore.io import Qrel, write_qrels
        >>> folder = tempfile.TemporaryDirectory()
        >>> path = os.path.join(folder.name, "qrels.txt")
        >>> write_qrels([Qrel("q1", "d1", 2), Qrel("q1", "d2", 0)], path)
        >>> print(open(path).read(), end="")
        q1 0 d1 2
        q1 0 d2 0
        >>> write_qrels([Qrel("q 1", "d1", 2)], path)
        Traceback (most recent call last):
        ValueError: qrels row 1: query id 'q 1' must be non-empty without whitespace (...)
        >>> folder.cleanup()

    :param rows: :class:`Qrel` rows, or any objects with those fields.
    :param path: the output file (written by :func:`open_output`), or ``-`` for standard output.
    :raises ValueError: for a bad id or relevance, naming the row.
    """
    lines = []
    for i, row in enumerate(rows, 1):
        where = f"qrels row {i}"
        grade = row.relevance
        if isinstance(grade, bool) or not isinstance(grade, (int, np.integer)):
            raise ValueError(f"{where}: relevance must be an integer, got {grade!r}")
        iteration = _qrels_field(getattr(row, "iteration", "0"), "iteration", where)
        lines.append(f"{_qrels_field(row.query_id, 'query id', where)} {iteration} "
                     f"{_qrels_field(row.doc_id, 'doc id', where)} {int(grade)}\n")
    with open_output(path) as out:
        out.write("".join(lines))
