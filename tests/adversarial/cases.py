"""The outcome every adversarial case asserts: a named error, or a documented result."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from collections.abc import Callable


@dataclass(frozen=True)
class Raises:
    """The call raises exactly ``kind`` (not a subclass chosen by accident: ``type(exc) is kind``
    unless ``subclass``), with ``fragment`` (a regular expression) in its message."""

    kind: type
    fragment: str
    subclass: bool = False

    def check(self, call: Callable[[], Any]) -> None:
        try:
            result = call()
        except Exception as exc:  # noqa: BLE001 -- the type is asserted just below
            assert isinstance(exc, self.kind) if self.subclass else type(exc) is self.kind, \
                f"expected {self.kind.__name__}, got {type(exc).__name__}: {exc}"
            assert re.search(self.fragment, str(exc)), f"{self.fragment!r} not in {str(exc)!r}"
            assert "\n" not in str(exc), f"a multi-line message: {exc!r}"
            return
        raise AssertionError(f"expected {self.kind.__name__}({self.fragment!r}), got the result {result!r}")


@dataclass(frozen=True)
class Returns:
    """The call returns; ``expect(result)`` holds (it may itself assert, with a better message)."""

    expect: Callable[[Any], Any]
    what: str

    def check(self, call: Callable[[], Any]) -> None:
        result = call()
        assert self.expect(result) is not False, f"{self.what}: got {result!r}"


def raises(kind: type, fragment: str, subclass: bool = False) -> Raises:
    return Raises(kind, fragment, subclass)


def returns(expect: Callable[[Any], Any], what: str) -> Returns:
    return Returns(expect, what)
