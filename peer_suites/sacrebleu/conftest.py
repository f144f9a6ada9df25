"""sacrebleu's own tests, run with ``sacrebleu`` resolving to ``qascore.compat.sacrebleu``."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the runner copies aliasing.py beside this file
from aliasing import alias_package  # noqa: E402

alias_package("sacrebleu", "qascore.compat.sacrebleu")

# Whole files that cannot apply, with the reason (docs/compat.md lists them).
NOT_APPLICABLE = {
    "test/test_api.py": "test-set download and lookup (sacrebleu.utils, sacrebleu.dataset): needs the network and "
                   "sacrebleu's data index; qascore scores text and does not fetch test sets",
    "test/test_dataset.py": "test-set download and processing (sacrebleu.dataset): needs the network",
}
collect_ignore = [*NOT_APPLICABLE]


def pytest_report_header(config):
    return [f"not run: {path}: {reason}" for path, reason in NOT_APPLICABLE.items()]
