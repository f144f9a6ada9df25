"""The test data in tests/data/shared: the bytes its SHA256SUMS records (those of ../shared/data),
every set with its source and licence named beside it, and none of the sets that may not be shipped."""
import gzip
import hashlib

import pytest

from conftest import REPO_DATA, SHARED_DATA, is_data_file

RESTRICTED = ("ava/wikiqa", "ava/trecqa", "nuggets/trec_qa")  # WikiQA: research use only; TREC: NIST data


def _data_files():
    return sorted(p for p in REPO_DATA.rglob("*") if is_data_file(p))


def _recorded() -> dict[str, str]:
    """name in ../shared/data's layout -> the SHA-256 of its bytes (``sha256sum`` lines)."""
    lines = (REPO_DATA / "SHA256SUMS").read_text(encoding="utf-8").splitlines()
    return {name: digest for digest, name in (line.split("  ", 1) for line in lines)}


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_the_copy_holds_the_recorded_bytes():
    recorded = _recorded()
    seen = {}
    for path in _data_files():
        relative = path.relative_to(REPO_DATA)
        name = (relative.with_suffix("") if path.suffix == ".gz" else relative).as_posix()
        content = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
        seen[name] = _sha256(content)
    assert seen == recorded


def test_the_recorded_bytes_are_shared_data():
    if not SHARED_DATA.is_dir():
        pytest.skip(f"nothing to compare with: {SHARED_DATA} is absent")
    recorded = _recorded()
    for name, digest in recorded.items():
        assert _sha256((SHARED_DATA / name).read_bytes()) == digest, name
    # a file added to a copied set in ../shared/data must be copied too
    for folder in {name.rsplit("/", 1)[0] for name in recorded}:
        there = {f"{folder}/{p.name}" for p in (SHARED_DATA / folder).iterdir() if is_data_file(p)}
        assert there <= recorded.keys(), folder


def test_every_set_names_its_source_and_licence():
    files = _data_files()
    assert files
    for folder in {p.parent for p in files}:
        readme = folder / "README.md"
        assert readme.is_file(), f"{folder} has no README.md naming its source and licence"
        text = readme.read_text(encoding="utf-8")
        assert "Source:" in text and "Licence:" in text, readme
    assert (REPO_DATA / "LICENSE-Apache-2.0").is_file()


def test_no_restricted_set_is_shipped():
    for path in REPO_DATA.rglob("*"):
        relative = path.relative_to(REPO_DATA).as_posix()
        assert not relative.startswith(RESTRICTED), f"{relative} may not be shipped"
