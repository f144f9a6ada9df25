"""``sacrebleu.dataset``: sacrebleu 2.6.0's index of test sets, as data (``datasets.json``, written
from sacrebleu's own list by ``tools/build_sacrebleu_datasets.py``): ``DATASETS`` maps each test
set's name to a :class:`Dataset` with sacrebleu's ``name``, ``description``, ``citation``, ``data``
(the addresses sacrebleu downloads from), ``md5`` and ``langpairs`` (pair -> the files sacrebleu
reads), in sacrebleu's order. qascore scores text and never downloads: the methods that fetch or
read a test set raise a one-line :class:`TestSetDownloadError`.
"""
from __future__ import annotations

import json
from importlib import resources

from ....errors import QascoreError


class TestSetDownloadError(QascoreError, NotImplementedError):
    """A test set would have to be downloaded or read: sacrebleu's own work, not qascore's."""

    __test__ = False  # not a test class, whatever pytest collects


def refuse_download(test_set: str) -> TestSetDownloadError:
    return TestSetDownloadError(
        f"test set {test_set!r}: qascore lists sacrebleu's test sets but does not download or read them; fetch it "
        f"with sacrebleu (sacrebleu -t {test_set} -l PAIR --echo src > source.txt) and score the files")


class Dataset:
    """One test set of sacrebleu's index: what it is, where it is published, its language pairs."""

    def __init__(self, name: str, data=None, description=None, citation=None, md5=None, langpairs=None, **kwargs):
        self.name = name
        self.data = data
        self.description = description
        self.citation = citation
        self.md5 = md5
        self.langpairs = langpairs if langpairs is not None else {}
        self.kwargs = kwargs

    def __repr__(self) -> str:
        return f"Dataset({self.name!r}, {len(self.langpairs)} language pairs)"

    def _refuse(self, *args, **kwargs):
        raise refuse_download(self.name)

    maybe_download = process_to_text = get_source_file = get_reference_files = get_files = _refuse
    source = references = fieldnames = _refuse


def _load() -> dict[str, Dataset]:
    text = resources.files(__package__).joinpath("datasets.json").read_text(encoding="utf-8")
    return {name: Dataset(name, **fields) for name, fields in json.loads(text)["datasets"].items()}


DATASETS = _load()

__all__ = ["DATASETS", "Dataset", "TestSetDownloadError"]
