"""The test data in tests/data/shared: the same bytes as ../shared/data, every set with its source
and licence named beside it, and none of the sets that may not be shipped."""
import gzip
import re

import pytest

from conftest import REPO_DATA, SHARED_DATA, is_data_file

RESTRICTED = ("ava/wikiqa", "ava/trecqa", "nuggets/trec_qa")  # WikiQA: research use only; TREC: NIST data


def _data_files():
    return sorted(p for p in REPO_DATA.rglob("*") if is_data_file(p))


def _shared_name(path):
    relative = path.relative_to(REPO_DATA)
    return relative.with_suffix("") if path.suffix == ".gz" else relative


def test_the_copy_is_shared_data_byte_for_byte():
    if not SHARED_DATA.is_dir():
        pytest.skip(f"nothing to compare with: {SHARED_DATA} is absent")
    folders = {p.parent for p in _data_files()}
    for folder in folders:  # a file added to a copied set in ../shared/data must be copied too
        want = {p.name for p in (SHARED_DATA / folder.relative_to(REPO_DATA)).iterdir() if is_data_file(p)}
        got = {_shared_name(p).name for p in folder.iterdir() if is_data_file(p)}
        assert got == want, folder
    for path in _data_files():
        original = (SHARED_DATA / _shared_name(path)).read_bytes()
        copy = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
        assert copy == original, path


def test_every_set_names_its_source_and_licence():
    files = _data_files()
    assert files
    for folder in {p.parent for p in files}:
        readme = folder / "README.md"
        assert readme.is_file(), f"{folder} has no README.md naming its source and licence"
        text = readme.read_text(encoding="utf-8")
        assert "Source:" in text, readme
        assert re.search(r"Licen[cs]e", text), readme
    assert (REPO_DATA / "LICENSE-Apache-2.0").is_file()


def test_no_restricted_set_is_shipped():
    for path in REPO_DATA.rglob("*"):
        relative = path.relative_to(REPO_DATA).as_posix()
        assert not relative.startswith(RESTRICTED), f"{relative} may not be shipped"
