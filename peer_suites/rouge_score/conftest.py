"""rouge-score 0.1.2's own tests, run against ``qascore.compat.rouge_score``.

Copied next to the fetched test modules (see fetch.py). Before any test module is imported,
``rouge_score`` and its submodules resolve to qascore's drop-in, and ``rouge_score.test_util`` to
the fetched helper (its data paths point at shared/data/rouge_score); any other ``rouge_score.*``
import fails, so the real package is never loaded (checked again when the session ends).

Tests are skipped only where they cannot apply, each with its reason: NOT_APPLICABLE (always),
DATA_NEEDS (when a data file is missing) and NLTK_NEEDS (when NLTK's Punkt model is not installed).
A test that fails because our numbers differ is a bug in qascore, never an entry here.
"""
from __future__ import annotations

import importlib.abc
import importlib.util
import sys
import types
from pathlib import Path

import pytest

try:
    import qascore.compat.rouge_score as drop_in
    from qascore.compat.rouge_score import rouge_scorer, scoring, tokenize, tokenizers
except ImportError as error:
    raise ImportError(f"{error}: this suite needs qascore with the compat.rouge_score package (an installed "
                      "build of this checkout, or PYTHONPATH=src)") from error

HERE = Path(__file__).resolve().parent
SUBMODULES = {"rouge_scorer": rouge_scorer, "scoring": scoring, "tokenize": tokenize, "tokenizers": tokenizers}

_PYROUGE = "needs rouge-score's testdata/pyrouge_files/ (multi-sentence pairs scored by ROUGE-1.5.5), which " \
           "rouge-score's sdist does not ship and shared/data/rouge_score does not include"
NOT_APPLICABLE = {
    "RougeScorerTest::testRougeLSumAgainstRouge155WithStemming": _PYROUGE,
    "BootstrapAggregatorTest::testConfidenceIntervalsAgainstRouge155WithStemmingMultiLine": _PYROUGE,
}

# test id substring -> the data files its setUp (or body) reads
DATA_NEEDS = {
    "RougeScorerTest::": ("target.txt", "prediction.txt"),
    "RougeScorerTest::testRougeLsumLarge": ("target_large.txt", "prediction_large.txt"),
    "BootstrapAggregatorTest::": ("target_large.txt", "prediction_large.txt"),
}

# test id substring -> why it needs NLTK's Punkt sentence model (split_summaries=True)
NLTK_NEEDS = {
    "RougeScorerTest::testRougeLSumSentenceSplitting": "split_summaries=True splits with nltk.sent_tokenize",
}

collect_ignore = ["test_util.py"]  # the helper, not a test module


def _load_test_util() -> types.ModuleType:
    spec = importlib.util.spec_from_file_location("rouge_score.test_util", HERE / "test_util.py")
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load the fetched {HERE / 'test_util.py'} (run fetch.py first)")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _BlockRealRougeScore(importlib.abc.MetaPathFinder):
    """Any rouge_score.* not aliased below would come from the real package: refuse it."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname == "rouge_score" or fullname.startswith("rouge_score."):
            raise ImportError(f"{fullname} is not part of qascore.compat.rouge_score (the real rouge_score "
                              "must not be imported by this suite)")
        return None


def _install_aliases() -> types.ModuleType:
    # a package-shaped module named rouge_score: its attributes are the drop-in's (so
    # `from rouge_score import test_util` also works without touching qascore's package)
    package = types.ModuleType("rouge_score", drop_in.__doc__)
    package.__dict__.update({k: v for k, v in vars(drop_in).items() if not k.startswith("__")})
    package.__path__ = []  # a package with nothing on disk
    package.test_util = _load_test_util()  # type: ignore[attr-defined]
    sys.modules["rouge_score"] = package
    for name, module in SUBMODULES.items():
        sys.modules[f"rouge_score.{name}"] = module
    sys.modules["rouge_score.test_util"] = package.test_util
    sys.meta_path.insert(0, _BlockRealRougeScore())
    return package


if "rouge_score" in sys.modules:
    raise RuntimeError(f"{sys.modules['rouge_score']!r} was imported before this conftest; run the suite alone")
_ALIAS = _install_aliases()


def _punkt_missing() -> str | None:
    try:
        import nltk

        nltk.data.find("tokenizers/punkt_tab/english/")
    except ImportError:
        return "nltk is not installed"
    except LookupError:
        return "NLTK's punkt_tab data is not installed (python -m nltk.downloader punkt_tab)"
    return None


def _skip_reason(nodeid: str, data_dir: Path) -> str | None:
    for substring, reason in NOT_APPLICABLE.items():
        if substring in nodeid:
            return f"not applicable: {reason}"
    for substring, files in DATA_NEEDS.items():
        missing = [f for f in files if substring in nodeid and not (data_dir / f).is_file()]
        if missing:
            return f"data not found: {', '.join(str(data_dir / f) for f in missing)} (rouge-score's testdata)"
    for substring, why in NLTK_NEEDS.items():
        if substring in nodeid:
            absent = _punkt_missing()
            if absent:
                return f"{absent}; {why}"
    return None


def pytest_collection_modifyitems(config, items):
    data_dir = Path(_ALIAS.test_util._TESTDATA_PREFIX)
    for item in items:
        reason = _skip_reason(item.nodeid, data_dir)
        if reason:
            item.add_marker(pytest.mark.skip(reason=reason))


def pytest_sessionfinish(session, exitstatus):
    own = {id(m) for m in (*SUBMODULES.values(), _ALIAS, _ALIAS.test_util)}
    strays = [name for name, module in sys.modules.items()
              if (name == "rouge_score" or name.startswith("rouge_score.")) and id(module) not in own]
    if strays:
        raise RuntimeError(f"modules of the real rouge_score were imported: {strays}")
