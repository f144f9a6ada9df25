"""The test-set index of qascore.compat.sacrebleu (utils, dataset) against sacrebleu 2.6.0's own:
the shipped data is what tools/build_sacrebleu_datasets.py writes from the installed sacrebleu, and
every listing function gives sacrebleu's answer for every test set and language pair."""
import sys
from pathlib import Path

import pytest

from qascore.compat.sacrebleu import utils
from qascore.compat.sacrebleu.dataset import DATASETS, TestSetDownloadError

sacre_utils = pytest.importorskip("sacrebleu.utils")
from sacrebleu.dataset import DATASETS as SACRE_DATASETS  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import build_sacrebleu_datasets  # noqa: E402


def test_the_shipped_index_is_what_the_installed_sacrebleu_gives():
    shipped = build_sacrebleu_datasets.SHIPPED.read_text(encoding="utf-8")
    assert shipped == build_sacrebleu_datasets.render(build_sacrebleu_datasets.datasets_index())


def test_datasets_carry_sacrebleus_fields_in_sacrebleus_order():
    assert list(DATASETS) == list(SACRE_DATASETS)
    for name, theirs in SACRE_DATASETS.items():
        ours = DATASETS[name]
        assert (ours.name, ours.description, ours.citation, ours.data, ours.md5, ours.langpairs, ours.kwargs) == (
            theirs.name, theirs.description, theirs.citation, theirs.data, theirs.md5, theirs.langpairs, theirs.kwargs)
        assert list(ours.langpairs) == list(theirs.langpairs)


def test_listings_equal_sacrebleus_for_every_test_set_and_pair():
    assert utils.get_available_testsets() == sacre_utils.get_available_testsets()
    pairs = set()
    for name in [*SACRE_DATASETS, "no-such-set", "wmt05"]:
        assert utils.get_langpairs_for_testset(name) == sacre_utils.get_langpairs_for_testset(name)
        pairs.update(SACRE_DATASETS[name].langpairs if name in SACRE_DATASETS else ())
    reversed_pairs = {"-".join(p.split("-")[:2][::-1]) for p in pairs}
    for pair in sorted(pairs | reversed_pairs | {"en-xx", "xx-yy", "en-fr-extra"}):
        assert utils.get_available_testsets_for_langpair(pair) == sacre_utils.get_available_testsets_for_langpair(pair)


def test_what_would_download_is_a_one_line_error():
    calls = [(utils.get_source_file, ("wmt19", "de-en")), (utils.get_reference_files, ("wmt19", "de-en")),
             (utils.get_files, ("wmt19", "de-en")), (DATASETS["wmt19"].get_source_file, ("de-en",)),
             (DATASETS["wmt19"].maybe_download, ())]
    for call, args in calls:
        with pytest.raises(TestSetDownloadError, match="'wmt19': qascore lists sacrebleu's test sets but does not "
                                                       "download or read them") as error:
            call(*args)
        assert "\n" not in str(error.value)
    with pytest.raises(ValueError, match="No such test set nope"):
        utils.get_source_file("nope", "de-en")
    with pytest.raises(ValueError, match="expected 'source-target'"):
        utils.get_available_testsets_for_langpair("en")
