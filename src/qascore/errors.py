"""Exceptions shared by every method: bad input is named by what and where (the checks that raise
them live in :mod:`qascore.validate`)."""
from __future__ import annotations

import re

__all__ = ["InputFormatError", "MissingExtraError", "MissingResourceError", "QascoreError"]

# Characters that would break a one-line message or change how it shows on a terminal: C0 and C1
# controls (line feed, carriage return, escape, NEL), the Unicode line and paragraph separators,
# and the bidirectional overrides.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match) -> str:
    char = match.group()
    return _ESCAPES.get(char) or (f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}")


def one_line(text: str) -> str:
    """``text`` with line breaks and other control characters escaped as a Python string literal
    writes them (``\\n``, ``\\x1b``, ``\\u2028``): a message that names a file called
    ``"a\\nb"`` stays one line, and a terminal shows it as it is."""
    return _CONTROL.sub(_escape, text)


def display_name(path) -> str:
    """How messages name a path: ``<stdin>`` for ``-``, control characters escaped (:func:`one_line`)."""
    text = str(path)
    return "<stdin>" if text == "-" else one_line(text)


class QascoreError(Exception):
    """Base class of qascore's own errors: one ``except QascoreError`` catches a bad input file, a
    missing optional package and a missing data file alike.

    Example:

        >>> from qascore.errors import InputFormatError, MissingExtraError, QascoreError
        >>> issubclass(InputFormatError, QascoreError), issubclass(MissingExtraError, QascoreError)
        (True, True)
    """


class InputFormatError(QascoreError, ValueError):
    """A malformed record in a file: carries the file, the 1-based line and what was expected.
    It is a ``ValueError`` too, so code that catches bad values catches it.

    Example:

        >>> from qascore.errors import InputFormatError
        >>> error = InputFormatError("answers.jsonl", 3, "missing field 'answer'")
        >>> str(error)
        "answers.jsonl:3: missing field 'answer'"
        >>> error.path, error.line, error.reason
        ('answers.jsonl', 3, "missing field 'answer'")
        >>> str(InputFormatError("-", None, "standard input is empty"))
        '<stdin>: standard input is empty'

    :param path: the file (``-`` for standard input, named ``<stdin>``).
    :param line: the 1-based line, or None when the problem is the whole file.
    :param message: what is wrong, or what was expected.
    """

    def __init__(self, path, line: int | None, message: str):
        self.path = str(path)
        self.line = line
        self.reason = message
        name = display_name(path)
        where = name if line is None else f"{name}:{line}"
        super().__init__(f"{where}: {message}")


class MissingResourceError(QascoreError, LookupError):
    """A data file a setting needs (NLTK's Punkt model) is not installed: says how to install it.
    It is a ``LookupError`` too."""


class MissingExtraError(QascoreError, ImportError):
    """An optional dependency is not installed: names the extra that provides it
    (``pip install "qascore[ray]"``). It is an ``ImportError`` too."""


def require_extra(extra: str, *modules: str) -> None:
    """Raise :class:`MissingExtraError` unless every module can be imported; checked before any work
    starts, without importing the modules."""
    import importlib.util

    missing = [name for name in modules if importlib.util.find_spec(name.split(".")[0]) is None]
    if missing:
        what = f"{missing[0]} is" if len(missing) == 1 else f"{', '.join(missing)} are"
        raise MissingExtraError(f"{what} not installed; install it with: pip install \"qascore[{extra}]\"")
