"""The reference's examples run: every docstring example (``>>>``) in the installed qascore passes as
a doctest, and every public entry point (a callable in a public module's ``__all__``) has one.

The doctests run on the installed package (never on src/), one test per module; a module whose
import needs an optional extra that is absent (``ray``, ``train``'s torch, ...) skips with the
missing package named. Examples that need onnxruntime and a model load are marked
``# doctest: +SKIP`` in their docstrings; the ONNX models are tested in test_ava*.py and
test_runtime.py.
"""
from __future__ import annotations

import doctest
import importlib
import inspect
import pkgutil

import pytest

import qascore

# The public modules whose ``__all__`` names the public entry points (docs/api/*.md has a page for
# each family).
PUBLIC_MODULES = (
    "qascore.io",
    "qascore.metric",
    "qascore.signature",
    "qascore.errors",
    "qascore.validate",
    "qascore.prf",
    "qascore.lazy",
    "qascore.text",
    "qascore.text.tokenizers",
    "qascore.text.sacrebleu_tokenizers",
    "qascore.text.tercom",
    "qascore.text.sentences",
    "qascore.stats",
    "qascore.judges",
    "qascore.ava",
    "qascore.exam",
    "qascore.nuggets",
    "qascore.lexical",
    "qascore.lexical.rouge",
    "qascore.lexical.bleu",
    "qascore.lexical.segments",
    "qascore.lexical.mrc",
    "qascore.lexical.coco",
    "qascore.lexical.formats",
    "qascore.lexical.chrf",
    "qascore.lexical.ter",
    "qascore.runtime",
    "qascore.integrations.ray",
    "qascore.integrations.spark",
    "qascore.integrations.batches",
    "qascore.integrations.ir_measures",
    "qascore.compat.rouge_score",
    "qascore.compat.rouge_score.rouge_scorer",
    "qascore.compat.rouge_score.scoring",
    "qascore.compat.rouge_score.tokenize",
    "qascore.compat.rouge_score.tokenizers",
    "qascore.compat.sacrebleu",
    "qascore.cli",
)

# Public callables without an example, each with the reason.
NO_EXAMPLE = {
    # Compiled functions re-exported by qascore.prf: their docstrings live in kernels/prf.pyx and change
    # only with a rebuild of the core; count_ratios and prf_of_counts show the same numbers in Python.
    "qascore._kernels.prf.pair_score": "compiled (kernels/prf.pyx); shown through prf_of_counts",
    "qascore._kernels.prf.ratio_of_counts": "compiled (kernels/prf.pyx); shown through count_ratios",
    "qascore._kernels.prf.rouge_prf": "compiled (kernels/prf.pyx); shown through prf_of_counts",
    # The peer's abstract base classes, kept for user subclasses; an example would be a subclass.
    "qascore.compat.rouge_score.scoring.BaseScorer": "rouge-score's abstract base, for subclasses",
    "qascore.compat.rouge_score.tokenizers.Tokenizer": "rouge-score's abstract base, for subclasses",
    "qascore.compat.rouge_score.rouge_scorer.lcs_ind": "rouge-score's private LCS helper, kept for its test suite",
}


# Modules whose public entry points have no examples yet (issue 38's reference is not finished
# there): an entry point defined in one of them is not checked. test_pending_modules_still_pending
# fails once a module is complete, so the list only shrinks.
PENDING: dict[str, str] = {}


def pending(home: str) -> bool:
    return any(home == p or (p.endswith(".") and home.startswith(p)) for p in PENDING)


def all_modules() -> list[str]:
    """Every module of the installed package (``__main__`` modules run a command on import)."""
    names = ["qascore"]
    for info in pkgutil.walk_packages(qascore.__path__, "qascore."):
        if not info.name.rsplit(".", 1)[-1] == "__main__":
            names.append(info.name)
    return sorted(names)


def import_or_skip(name: str):
    """The module ``name``; the test skips, naming the missing package, where an optional extra is absent."""
    try:
        return importlib.import_module(name)
    except ImportError as exc:  # MissingExtraError is an ImportError too
        missing = getattr(exc, "name", None) or str(exc)
        pytest.skip(f"{name} needs an optional package that is not installed: {missing}")


def is_exempt(obj) -> str | None:
    """Why ``obj`` needs no example of its own, or None: data (a constant, a pattern, a version, a
    measure object) is not called, and an exception class is shown where it is raised."""
    if inspect.ismodule(obj):
        return "a module (its members are checked)"
    if inspect.isclass(obj) and issubclass(obj, BaseException):
        return "an exception or warning class"
    if not (inspect.isclass(obj) or inspect.isroutine(obj) or callable(obj)):
        return "data, not called"
    if not (inspect.isclass(obj) or inspect.isroutine(obj) or hasattr(obj, "__wrapped__")):
        return "data, not called"
    return None


def public_entry_points() -> list[tuple[str, str]]:
    """(module, name) of every callable in a public module's ``__all__``, by the object's own home
    (a name re-exported by two modules is checked once)."""
    seen: set[int] = set()
    points = []
    for module_name in PUBLIC_MODULES:
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        for name in module.__all__:
            obj = getattr(module, name)
            if is_exempt(obj) or id(obj) in seen:
                continue
            seen.add(id(obj))
            points.append((module_name, name))
    return points


@pytest.mark.parametrize("module_name", all_modules())
def test_docstring_examples_pass(module_name):
    module = import_or_skip(module_name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    tests = [test for test in finder.find(module, module_name) if test.examples]
    failures = []
    for test in tests:
        # Only the examples written in this module (a re-exported object is tested in its home).
        if test.filename and module.__file__ and test.filename != module.__file__:
            continue
        result = runner.run(test, out=failures.append)
        assert result.failed == 0, f"{test.name}:\n" + "".join(failures)


def test_every_public_entry_point_has_an_example():
    missing = []
    for module_name, name in public_entry_points():
        obj = getattr(importlib.import_module(module_name), name)
        key = f"{getattr(obj, '__module__', module_name)}.{getattr(obj, '__qualname__', name)}"
        if key in NO_EXAMPLE or pending(getattr(obj, "__module__", module_name)):
            continue
        if ">>>" not in (inspect.getdoc(obj) or ""):
            missing.append(f"{module_name}.{name} ({key})")
    assert not missing, "public entry points without a docstring example (>>>):\n" + "\n".join(missing)


def test_pending_modules_still_pending():
    """Each PENDING entry still covers a public entry point without an example."""
    still = set()
    for module_name, name in public_entry_points():
        obj = getattr(importlib.import_module(module_name), name)
        home = getattr(obj, "__module__", module_name)
        if ">>>" not in (inspect.getdoc(obj) or ""):
            still.update(p for p in PENDING if home == p or (p.endswith(".") and home.startswith(p)))
    assert set(PENDING) <= still, f"complete now, drop from PENDING: {sorted(set(PENDING) - still)}"


def test_allow_list_is_current():
    """Each exception names a public callable that still has no example (a stale entry would hide nothing)."""
    keys = {}
    for module_name, name in public_entry_points():
        obj = getattr(importlib.import_module(module_name), name)
        keys[f"{getattr(obj, '__module__', module_name)}.{getattr(obj, '__qualname__', name)}"] = obj
    for key in NO_EXAMPLE:
        assert key in keys, f"NO_EXAMPLE names {key}, which is not a public entry point"
        assert ">>>" not in (inspect.getdoc(keys[key]) or ""), f"{key} has an example now: drop it from NO_EXAMPLE"
