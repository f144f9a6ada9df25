"""Exceptions shared by every method: bad input is named by what and where."""
from __future__ import annotations

from ._kernels.text_encode import first_non_str  # compiled: no Python loop over the batch


class QascoreError(Exception):
    """Base class of qascore's own errors."""


class InputFormatError(QascoreError, ValueError):
    """A malformed record in a file: carries the file, the 1-based line and what was expected."""

    def __init__(self, path, line: int | None, message: str):
        self.path = str(path)
        self.line = line
        self.reason = message
        where = self.path if line is None else f"{self.path}:{line}"
        super().__init__(f"{where}: {message}")


def check_texts(texts, what: str = "texts") -> None:
    """Raise a TypeError naming the first element that is not a str (None included)."""
    if isinstance(texts, (list, tuple)):
        index = first_non_str(texts)
        if index >= 0:
            raise TypeError(f"{what}[{index}] must be str, got {type(texts[index]).__name__}")
        return
    if set(map(type, texts)) <= {str}:  # the common case, without a Python loop
        return
    for index, text in enumerate(texts):
        if not isinstance(text, str):
            raise TypeError(f"{what}[{index}] must be str, got {type(text).__name__}")


def check_encodable(texts, what: str = "texts") -> None:
    """Raise a ValueError naming the first string holding a lone surrogate (not valid Unicode, so
    no UTF-8 tokenizer can read it), with the code point and its position."""
    for index, text in enumerate(texts):
        if text.isascii():
            continue
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise ValueError(f"{what}[{index}] is not valid Unicode: lone surrogate U+{ord(text[exc.start]):04X} "
                             f"at position {exc.start}") from None


def check_text_batch(texts, name: str) -> list:
    """Validate a batch of strings once at the API boundary and return it as a list."""
    if isinstance(texts, str):
        raise TypeError(f"{name} must be a sequence of strings, not a single string")
    out = list(texts)
    check_texts(out, name)
    return out


def check_same_length(a, b, name_a: str, name_b: str) -> None:
    if len(a) != len(b):
        raise ValueError(f"{name_a} has {len(a)} items but {name_b} has {len(b)}")


class MissingExtraError(QascoreError, ImportError):
    """An optional dependency is not installed: names the extra that provides it."""


def require_extra(extra: str, *modules: str) -> None:
    """Raise :class:`MissingExtraError` unless every module can be imported; checked before any work
    starts, without importing the modules."""
    import importlib.util

    missing = [name for name in modules if importlib.util.find_spec(name.split(".")[0]) is None]
    if missing:
        what = f"{missing[0]} is" if len(missing) == 1 else f"{', '.join(missing)} are"
        raise MissingExtraError(f"{what} not installed; install it with: pip install \"qascore[{extra}]\"")
