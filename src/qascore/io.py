"""Line-oriented readers shared by the command line and the format modules.

Every reader decodes UTF-8 strictly and reports the file and 1-based line of any problem;
nothing is skipped silently.
"""
from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Iterator

from .errors import InputFormatError


def open_text(path):
    """Open a text file (``.gz`` transparently) for strict UTF-8 reading."""
    path = Path(path)
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8", errors="strict", newline="")
    return open(path, "r", encoding="utf-8", errors="strict", newline="")


def iter_lines(path) -> Iterator[tuple[int, str]]:
    """Yield (line number, line without its newline). Invalid UTF-8 names the line."""
    lineno = 0
    with open(path, "rb") as raw:
        opener = gzip.open(raw) if str(path).endswith(".gz") else raw
        for lineno, data in enumerate(opener, 1):
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise InputFormatError(path, lineno, f"invalid UTF-8 ({exc.reason} at byte {exc.start})") from None
            yield lineno, text.rstrip("\r\n") if text.endswith("\n") else text


def iter_jsonl(path, *, allow_blank: bool = True) -> Iterator[tuple[int, object]]:
    """Yield (line number, parsed JSON value) for each non-blank line of a JSON-lines file."""
    for lineno, line in iter_lines(path):
        if not line.strip():
            if allow_blank:
                continue
            raise InputFormatError(path, lineno, "blank line, expected a JSON value")
        try:
            yield lineno, json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputFormatError(path, lineno, f"invalid JSON: {exc.msg} (column {exc.colno})") from None


def require_field(record, field: str, types, path, lineno: int):
    """Return ``record[field]`` checked against ``types``; a missing or mistyped field names the line."""
    if not isinstance(record, dict):
        raise InputFormatError(path, lineno, f"expected a JSON object, got {type(record).__name__}")
    if field not in record:
        raise InputFormatError(path, lineno, f"missing field {field!r}")
    value = record[field]
    if not isinstance(value, types):
        names = types.__name__ if isinstance(types, type) else "/".join(t.__name__ for t in types)
        raise InputFormatError(path, lineno, f"field {field!r} must be {names}, got {type(value).__name__}")
    return value
