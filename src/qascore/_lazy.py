"""Names a module exports but imports on first use (PEP 562), so that importing it stays cheap.

A module lists each lazily exported name twice: under ``if TYPE_CHECKING:`` as a plain import
(what type checkers and readers see) and in the table given to :func:`lazy_exports` (what runs);
``tests/test_cold_start.py`` checks that the two agree for every module that uses this.
"""
from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any


def lazy_exports(module_name: str, exports: Mapping[str, Sequence[str]],
                 ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for the module ``module_name``.

    ``exports`` maps a module path, relative as in the module's own imports (``".data"``,
    ``"...stats.bootstrap"``), to the names taken from it. The first lookup of a name imports its
    module and stores the value in the module's namespace, so later lookups skip the hook.
    """
    module = sys.modules[module_name]
    package = module.__spec__.parent if module.__spec__ is not None else module_name.rpartition(".")[0]
    source_of = {name: source for source, names in exports.items() for name in names}

    def __getattr__(name: str) -> Any:
        source = source_of.get(name)
        if source is None:
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(source, package), name)
        setattr(module, name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(module)) | set(source_of))

    return __getattr__, __dir__
