"""Lazy exports: names a module exports but imports on first use (PEP 562), so that importing it stays cheap.

A module lists each lazily exported name twice: under ``if TYPE_CHECKING:`` as a plain import
(what type checkers and readers see) and in the table given to :func:`lazy_exports` (what runs);
``tests/test_cold_start.py`` checks that the two agree for every module that uses this.
``qascore.lexical``, ``qascore.ava`` and ``qascore.compat.rouge_score.scoring`` export their
names this way.
"""
from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(module_name: str, exports: Mapping[str, Sequence[str]],
                 ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for the module ``module_name``.

    A module binds them at its end, after its own imports and definitions::

        __getattr__, __dir__ = lazy_exports(__name__, {".bleu": ("BLEU", "corpus_bleu")})

    The first lookup of a name imports its module and stores the value in the module's
    namespace, so later lookups skip the hook; ``dir(module)`` lists the lazy names before they
    are loaded.

    :param module_name: the name of the module that exports (``__name__``); it must already be
        in ``sys.modules``, as a module is while its body runs.
    :param exports: maps a module path, relative as in the module's own imports (``".data"``,
        ``"...stats.bootstrap"``) or absolute, to the names taken from it.
    :returns: ``(__getattr__, __dir__)``, the module-level hooks of PEP 562.
    :raises KeyError: when ``module_name`` is not in ``sys.modules``.

    The hook raises ``AttributeError`` for a name the table does not list, as a module does.

    Example (a module made on the fly that exports ``fractions.Fraction`` lazily):

        >>> import sys, types
        >>> from qascore.lazy import lazy_exports
        >>> demo = sys.modules["demo_lazy"] = types.ModuleType("demo_lazy")
        >>> demo.__getattr__, demo.__dir__ = lazy_exports("demo_lazy", {"fractions": ("Fraction",)})
        >>> "Fraction" in vars(demo), "Fraction" in dir(demo)
        (False, True)
        >>> demo.Fraction(2, 6)
        Fraction(1, 3)
        >>> "Fraction" in vars(demo)
        True
        >>> demo.Decimal
        Traceback (most recent call last):
        ...
        AttributeError: module 'demo_lazy' has no attribute 'Decimal'
        >>> del sys.modules["demo_lazy"]
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
