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

import importlib.util
import sys
import types
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the runner copies aliasing.py beside this file
from aliasing import alias_package  # noqa: E402

HERE = Path(__file__).resolve().parent

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


if "rouge_score" in sys.modules:
    raise RuntimeError(f"{sys.modules['rouge_score']!r} was imported before this conftest; run the suite alone")
TEST_UTIL = _load_test_util()
alias_package("rouge_score", "qascore.compat.rouge_score", {"rouge_score.test_util": TEST_UTIL})


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
    data_dir = Path(TEST_UTIL._TESTDATA_PREFIX)
    for item in items:
        reason = _skip_reason(item.nodeid, data_dir)
        if reason:
            item.add_marker(pytest.mark.skip(reason=reason))


def pytest_sessionfinish(session, exitstatus):
    strays = [name for name, module in sys.modules.items()
              if (name == "rouge_score" or name.startswith("rouge_score.")) and module is not TEST_UTIL
              and not module.__name__.startswith("qascore.compat.rouge_score")]
    if strays:
        raise RuntimeError(f"modules of the real rouge_score were imported: {strays}")
