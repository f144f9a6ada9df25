"""Exceptions shared by every method: bad input is named by what and where (the checks that raise
them live in :mod:`qascore.validate`)."""
from __future__ import annotations


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
