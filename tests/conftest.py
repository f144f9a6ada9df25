"""Shared fixtures: the real data beside the checkout, skipped with a reason when it is absent;
the rougeLsum kernel under a small memory budget."""
from contextlib import contextmanager
from pathlib import Path

import pytest

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared data not found at {SHARED_DATA} (it sits beside the checkout in CI only)")
    return SHARED_DATA


@contextmanager
def _lsum_budget(words: int):
    from qascore._kernels.lcs import _set_lsum_budget_words

    previous = _set_lsum_budget_words(words)
    try:
        yield
    finally:
        _set_lsum_budget_words(previous)


@pytest.fixture(scope="session")
def lsum_budget():
    """``with lsum_budget(words):`` runs the rougeLsum kernel with a table/match-row budget of
    ``words`` 8-byte words, which sends small inputs down the large-input paths (session scope:
    usable from hypothesis tests)."""
    return _lsum_budget
