"""Shared fixtures: the real test data (the repository's copy in tests/data/shared, the sets that may
not be shipped from ../shared/data, each skipped with a reason when absent); the rougeLsum kernel
under a small memory budget."""
import gzip
import shutil
from contextlib import contextmanager
from pathlib import Path

import pytest

REPO_DATA = Path(__file__).resolve().parent / "data" / "shared"
SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def is_data_file(path: Path) -> bool:
    """Whether ``path`` in tests/data/shared is data (not a README, a licence or the checksums)."""
    return path.is_file() and path.name not in ("README.md", "SHA256SUMS") and not path.name.startswith("LICENSE")


def unpack_repo_data(target: Path) -> Path:
    """The repository's copy of the test data written under ``target`` in ../shared/data's layout
    and names (each ``name.gz`` decompressed to ``name``), so a test reads the same bytes from
    either; returns ``target``."""
    for source in sorted(REPO_DATA.rglob("*")):
        if not is_data_file(source):
            continue
        relative = source.relative_to(REPO_DATA)
        dest = target / (relative.with_suffix("") if source.suffix == ".gz" else relative)
        dest.parent.mkdir(parents=True, exist_ok=True)
        with (gzip.open(source) if source.suffix == ".gz" else open(source, "rb")) as src, open(dest, "wb") as out:
            shutil.copyfileobj(src, out)
    return target


def locate_test_data(tmp_path_factory) -> Path:
    """Where the permissively licensed test data is read from: the repository's copy (unpacked once
    per session), else ../shared/data beside the checkout; skips the test with a reason when neither
    is there."""
    if REPO_DATA.is_dir():
        return unpack_repo_data(tmp_path_factory.mktemp("shared_data"))
    if SHARED_DATA.is_dir():
        return SHARED_DATA
    pytest.skip(f"test data not found in {REPO_DATA} nor at {SHARED_DATA}")


@pytest.fixture(scope="session")
def shared_data(tmp_path_factory) -> Path:
    """The real data with a licence that lets it travel with the tests (tests/data/shared/README.md):
    EVOUNA-NQ, MS MARCO and DuReader samples, rouge-score's test data, the TREC 2024 RAG runs."""
    return locate_test_data(tmp_path_factory)


@pytest.fixture(scope="session")
def restricted_data() -> Path:
    """../shared/data, for the sets whose licences keep them out of the repository (WikiQA: research
    use only; the TREC QA nugget keys and TREC-QA: NIST data)."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"WikiQA and the TREC sets may not be shipped with the tests; they are read from {SHARED_DATA}, "
                    "absent here (tests/data/shared/README.md)")
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
