"""``sacrebleu.utils``: the test-set listing functions over sacrebleu 2.6.0's index
(:mod:`~qascore.compat.sacrebleu.dataset`), with sacrebleu's results; the functions that would
download a test set raise a one-line error instead (qascore never downloads)."""
from __future__ import annotations

from ...text.sacrebleu_tokenizers import sacrebleu_cache_dir
from .dataset import DATASETS, refuse_download

# sacrebleu's data folder, as sacrebleu reads it at import ($SACREBLEU, else ~/.sacrebleu)
SACREBLEU_DIR = sacrebleu_cache_dir()


def get_available_testsets() -> list[str]:
    """Every test set's name, sorted in reverse (sacrebleu's order)."""
    return sorted(DATASETS.keys(), reverse=True)


def get_langpairs_for_testset(testset: str) -> list[str]:
    """The language pairs of ``testset`` in sacrebleu's order; ``[]`` for an unknown test set."""
    if testset not in DATASETS:
        return []
    return list(DATASETS[testset].langpairs.keys())


def get_available_testsets_for_langpair(langpair: str) -> list[str]:
    """The test sets that have ``langpair`` (``src-trg``) in either direction, in index order."""
    parts = langpair.split("-")
    if len(parts) < 2:
        raise ValueError(f"langpair {langpair!r}: expected 'source-target', such as 'en-de'")
    pair, reverse = f"{parts[0]}-{parts[1]}", f"{parts[1]}-{parts[0]}"
    return [ds.name for ds in DATASETS.values() if pair in ds.langpairs or reverse in ds.langpairs]


def _known(test_set: str) -> str:
    if test_set not in DATASETS:
        raise ValueError(f"No such test set {test_set}")
    return test_set


def get_source_file(test_set: str, langpair: str) -> str:
    raise refuse_download(_known(test_set))


def get_reference_files(test_set: str, langpair: str) -> list[str]:
    raise refuse_download(_known(test_set))


def get_files(test_set: str, langpair: str) -> list[str]:
    raise refuse_download(_known(test_set))
