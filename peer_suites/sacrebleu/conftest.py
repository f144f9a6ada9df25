"""sacrebleu's own tests, run with ``sacrebleu`` resolving to ``qascore.compat.sacrebleu``."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the runner copies aliasing.py beside this file
from aliasing import alias_package  # noqa: E402

alias_package("sacrebleu", "qascore.compat.sacrebleu")

_DOWNLOAD = ("needs the network: qascore lists sacrebleu's test sets (sacrebleu.utils, sacrebleu.dataset) but does "
             "not download or read them")
# Whole files that cannot apply, with the reason (docs/compat.md lists them).
NOT_APPLICABLE = {
    "test/test_dataset.py": f"test-set download and processing (sacrebleu.dataset): {_DOWNLOAD}",
}
# Tests of a collected file that cannot apply: they read a downloaded test set's files.
NOT_APPLICABLE_TESTS = {
    "test/test_api.py::test_api_get_source": f"get_source_file: {_DOWNLOAD}",
    "test/test_api.py::test_api_get_reference": f"get_reference_files: {_DOWNLOAD}",
}
collect_ignore = [*NOT_APPLICABLE]


def pytest_report_header(config):
    return [f"not run: {path}: {reason}" for path, reason in {**NOT_APPLICABLE, **NOT_APPLICABLE_TESTS}.items()]


def pytest_collection_modifyitems(config, items):
    for item in items:
        reason = NOT_APPLICABLE_TESTS.get(item.nodeid.split("[")[0])
        if reason:
            item.add_marker(pytest.mark.skip(reason=reason))
