"""qascore.compat.sacrebleu against sacrebleu 2.6 itself: the same classes, call shapes, score
objects, signatures, bootstrap intervals and significance tests, with numbers compared by ``==``.
(sacrebleu's own test suite runs against this package in peer_suites/, from .ci/run.)"""
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qascore.compat import sacrebleu as compat
from qascore.compat.sacrebleu import significance as our_significance
from qascore.compat.sacrebleu.metrics import BLEU, CHRF, TER

from mrc_reference import evouna_pairs, msmarco_pairs

sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu import significance as their_significance  # noqa: E402
from sacrebleu.metrics import BLEU as SacreBLEU  # noqa: E402
from sacrebleu.metrics import CHRF as SacreCHRF  # noqa: E402
from sacrebleu.metrics import TER as SacreTER  # noqa: E402

TOKENIZERS = ["13a", "none", "intl", "zh", "char"]


def as_streams(refs):
    width = max(len(r) for r in refs)
    return [[r[j] if j < len(r) else None for r in refs] for j in range(width)]


def same_score(ours, theirs):
    """Every public attribute and every printed form agree."""
    assert type(ours).__name__ == type(theirs).__name__
    public = {k: v for k, v in vars(theirs).items()}
    assert {k: v for k, v in vars(ours).items() if k in public} == public
    assert str(ours) == str(theirs) and repr(ours) == repr(theirs)
    for kwargs in ({}, {"width": 4}, {"score_only": True}, {"signature": "nrefs:1|version:2.6.0", "is_json": True}):
        assert ours.format(**kwargs) == theirs.format(**kwargs)


def same_metric_on_real_text(ours, theirs, hyps, refs):
    """Corpus score against reference streams (None where a question has fewer references), both
    signature forms, and sentence scores of the first 60 pairs."""
    streams = as_streams(refs)
    same_score(ours.corpus_score(hyps, streams), theirs.corpus_score(hyps, streams))
    assert ours.get_signature().format() == theirs.get_signature().format()
    assert ours.get_signature().format(short=True) == theirs.get_signature().format(short=True)
    for h, r in list(zip(hyps, refs))[:60]:
        same_score(ours.sentence_score(h, r), theirs.sentence_score(h, r))


@pytest.fixture(scope="module")
def msmarco(shared_data):
    hyps, refs = msmarco_pairs(shared_data)
    return hyps[:1500], refs[:1500]


@pytest.mark.parametrize("tok", TOKENIZERS)
@pytest.mark.parametrize("kwargs", [{}, {"lowercase": True, "smooth_method": "floor"},
                                    {"smooth_method": "add-k", "effective_order": True},
                                    {"smooth_method": "none", "max_ngram_order": 2}])
def test_bleu_class_matches_sacrebleu_on_real_text(msmarco, tok, kwargs):
    same_metric_on_real_text(BLEU(tokenize=tok, **kwargs), SacreBLEU(tokenize=tok, **kwargs), *msmarco)


def test_functions_and_cached_references_match_sacrebleu(msmarco):
    hyps, refs = msmarco
    streams = as_streams(refs)
    same_score(compat.corpus_bleu(hyps, streams), sacrebleu.corpus_bleu(hyps, streams))
    same_score(compat.raw_corpus_bleu(hyps, streams), sacrebleu.raw_corpus_bleu(hyps, streams))
    same_score(compat.compat.sentence_bleu(hyps[0], refs[0]), sacrebleu.compat.sentence_bleu(hyps[0], refs[0]))
    cached, theirs = BLEU(references=streams), SacreBLEU(references=streams)
    same_score(cached.corpus_score(hyps, None), theirs.corpus_score(hyps, None))
    assert cached.get_signature().format() == theirs.get_signature().format()  # nrefs:var


def test_evouna_answers_match_sacrebleu(shared_data):
    hyps, refs = evouna_pairs(shared_data)
    hyps, refs = hyps[::5], refs[::5]
    streams = as_streams(refs)
    same_score(compat.corpus_bleu(hyps, streams, tokenize="intl"),
               sacrebleu.corpus_bleu(hyps, streams, tokenize="intl"))
    ours = BLEU(effective_order=True)
    theirs = SacreBLEU(effective_order=True)
    assert [ours.sentence_score(h, r).score for h, r in zip(hyps, refs)] == \
        [theirs.sentence_score(h, r).score for h, r in zip(hyps, refs)]


def test_bootstrap_interval_and_signature_match_sacrebleu(msmarco, monkeypatch):
    hyps, refs = msmarco
    streams = as_streams(refs)
    for seed in ("12345", "7"):
        monkeypatch.setenv("SACREBLEU_SEED", seed)
        ours, theirs = BLEU(), SacreBLEU()
        a, b = ours.corpus_score(hyps, streams, n_bootstrap=300), theirs.corpus_score(hyps, streams, n_bootstrap=300)
        assert (a._mean, a._ci) == (b._mean, b._ci)
        same_score(a, b)
        assert ours.get_signature().format() == theirs.get_signature().format()


def systems(hyps):
    """A baseline and three variants of real answers: cut, words dropped, sentences reordered."""
    cut = [" ".join(h.split()[: max(1, len(h.split()) * 2 // 3)]) for h in hyps]
    dropped = [" ".join(w for k, w in enumerate(h.split()) if k % 4 != 3) for h in hyps]
    swapped = [" ".join(reversed(h.split(". "))) for h in hyps]
    return [("baseline", hyps), ("cut", cut), ("dropped", dropped), ("swapped", swapped)]


@pytest.mark.parametrize("test_type, n_samples, n_ar_confidence", [("bs", 300, -1), ("ar", 400, 50)])
@pytest.mark.parametrize("name, n_lines", [("BLEU", 400), ("TER", 200)])  # sacrebleu's TER is slow
def test_paired_tests_match_sacrebleu(msmarco, name, n_lines, test_type, n_samples, n_ar_confidence, monkeypatch):
    monkeypatch.setenv("SACREBLEU_SEED", "12345")
    hyps, refs = msmarco
    hyps, streams = hyps[:n_lines], as_streams(refs[:n_lines])
    named = systems(hyps)
    ours_cls, theirs_cls = {"BLEU": (BLEU, SacreBLEU), "TER": (TER, SacreTER)}[name]
    ours = our_significance.PairedTest(named, {name: ours_cls(references=streams)}, None, test_type=test_type,
                                       n_samples=n_samples, n_ar_confidence=n_ar_confidence)()
    theirs = their_significance.PairedTest(named, {name: theirs_cls(references=streams)}, None,
                                           test_type=test_type, n_samples=n_samples,
                                           n_ar_confidence=n_ar_confidence)()
    assert {k: str(v) for k, v in ours[0].items()} == {k: str(v) for k, v in theirs[0].items()}
    assert ours[1]["System"] == theirs[1]["System"]
    assert [vars(r) for r in ours[1][name]] == [vars(r) for r in theirs[1][name]]


def test_none_anywhere_in_the_streams_matches_sacrebleu(msmarco):
    """Missing references in the first stream or between present ones, not only as padding."""
    hyps, refs = msmarco
    hyps, streams = hyps[:300], as_streams(refs[:300])
    streams = [streams[1], streams[0], *streams[2:]]  # mostly None first, then the full stream
    streams[1] = [None if k % 7 == 3 and first is not None else r for k, (first, r) in
                  enumerate(zip(streams[0], streams[1]))]
    for ours, theirs in ((BLEU(), SacreBLEU()), (CHRF(), SacreCHRF()), (TER(), SacreTER())):
        same_score(ours.corpus_score(hyps, streams), theirs.corpus_score(hyps, streams))
        assert ours.get_signature().format() == theirs.get_signature().format()


def test_paired_test_on_threads_gives_the_same_results(msmarco):
    hyps, refs = msmarco
    hyps, streams = hyps[:200], as_streams(refs[:200])
    runs = [our_significance.PairedTest(systems(hyps), {"BLEU": BLEU(references=streams)}, None, test_type="bs",
                                        n_samples=100, n_jobs=jobs)()[1] for jobs in (1, 3)]
    assert [vars(r) for r in runs[0]["BLEU"]] == [vars(r) for r in runs[1]["BLEU"]]


text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40)
segments = st.lists(st.tuples(text, st.lists(text, min_size=1, max_size=3)), min_size=1, max_size=6)


@settings(max_examples=150, deadline=None)
@given(data=segments, tok=st.sampled_from(TOKENIZERS), lowercase=st.booleans(),
       smooth=st.sampled_from(["none", "floor", "add-k", "exp"]))
def test_bleu_equals_sacrebleu_on_generated_unicode(data, tok, lowercase, smooth):
    hyps = [h for h, _ in data]
    streams = as_streams([r for _, r in data])
    kwargs = {"tokenize": tok, "lowercase": lowercase, "smooth_method": smooth}
    same_score(BLEU(**kwargs).corpus_score(hyps, streams), SacreBLEU(**kwargs).corpus_score(hyps, streams))
    for h, refs in data:
        assert compat.sentence_bleu(h, refs, **kwargs).score == sacrebleu.sentence_bleu(h, refs, **kwargs).score


def test_compute_bleu_is_sacrebleus_static_method():
    for args in [([3, 2, 1, 0], [4, 3, 2, 1], 4, 5), ([0, 0, 0, 0], [0, 0, 0, 0], 0, 0), ([6, 5, 4, 0], [6, 5, 4, 3], 6, 6)]:
        for smooth in ("none", "floor", "add-k", "exp"):
            same_score(BLEU.compute_bleu(*map(list, args[:2]), *args[2:], smooth_method=smooth),
                       SacreBLEU.compute_bleu(*map(list, args[:2]), *args[2:], smooth_method=smooth))


def test_import_paths_a_sacrebleu_user_writes():
    from qascore.compat.sacrebleu import BLEU as B, CHRF, corpus_chrf, sentence_chrf
    from qascore.compat.sacrebleu.metrics import BLEU as B2, CHRF as C2
    from qascore.compat.sacrebleu.metrics.bleu import BLEUScore
    from qascore.compat.sacrebleu.metrics.chrf import CHRFScore
    from qascore.compat.sacrebleu import TER, corpus_ter, sentence_ter
    from qascore.compat.sacrebleu.metrics import TER as T2
    from qascore.compat.sacrebleu.metrics.ter import TERScore
    from qascore.compat.sacrebleu.significance import PairedTest, Result
    from qascore.compat.sacrebleu.tokenizers.tokenizer_ter import TercomTokenizer

    assert B is B2 and CHRF is C2 and TER is T2 and callable(PairedTest)
    assert all(map(callable, (corpus_chrf, sentence_chrf, corpus_ter, sentence_ter, BLEUScore, CHRFScore, TERScore,
                              Result, TercomTokenizer)))
    assert compat.__version__ == sacrebleu.__version__ == "2.6.0"


def test_what_sacrebleu_silently_accepts_is_an_error_here():
    with pytest.raises(ValueError, match="reference streams have 1 lines but there are 2 hypotheses"):
        BLEU().corpus_score(["a", "b"], [["a"]])
    with pytest.raises(ValueError, match="reference stream 1 has 1 lines but stream 0 has 2"):
        BLEU().corpus_score(["a", "b"], [["a", "b"], ["a"]])
    with pytest.raises(TypeError, match=r"hyps\[1\] should be a string"):
        BLEU().corpus_score(["a", None], [["a", "b"]])
    with pytest.raises(RuntimeError, match="cache is empty"):
        BLEU().corpus_score(["a"], None)
    with pytest.raises(ValueError, match="unknown sacrebleu tokenizer 'moses'"):
        BLEU(tokenize="moses")
    with pytest.raises(ValueError, match="Number of references unknown"):
        BLEU().get_signature()


def test_seed_none_draws_fresh_samples(msmarco, monkeypatch):
    monkeypatch.setenv("SACREBLEU_SEED", "None")
    hyps, refs = msmarco
    metric = BLEU()
    metric.corpus_score(hyps[:100], as_streams(refs[:100]), n_bootstrap=50)
    assert metric.get_signature().format().startswith("nrefs:") and "seed:none" in metric.get_signature().format()
    assert os.environ["SACREBLEU_SEED"] == "None"


# ---- chrF and chrF++ ---------------------------------------------------------------------------
CHRF_SETTINGS = [{}, {"word_order": 2}, {"word_order": 2, "lowercase": True}, {"whitespace": True},
                 {"eps_smoothing": True}, {"char_order": 4, "word_order": 1, "beta": 1}]


@pytest.mark.parametrize("kwargs", CHRF_SETTINGS)
def test_chrf_class_matches_sacrebleu_on_real_text(msmarco, kwargs):
    same_metric_on_real_text(CHRF(**kwargs), SacreCHRF(**kwargs), *msmarco)


def test_chrf_functions_cache_and_bootstrap_match_sacrebleu(msmarco, monkeypatch):
    monkeypatch.setenv("SACREBLEU_SEED", "12345")
    hyps, refs = msmarco
    streams = as_streams(refs)
    same_score(compat.corpus_chrf(hyps, streams, word_order=2), sacrebleu.corpus_chrf(hyps, streams, word_order=2))
    same_score(compat.sentence_chrf(hyps[3], refs[3]), sacrebleu.sentence_chrf(hyps[3], refs[3]))
    ours, theirs = CHRF(references=streams), SacreCHRF(references=streams)
    a, b = ours.corpus_score(hyps, None, n_bootstrap=200), theirs.corpus_score(hyps, None, n_bootstrap=200)
    assert (a._mean, a._ci) == (b._mean, b._ci)  # float32 bootstrap sums, rounded as sacrebleu rounds them
    same_score(a, b)
    assert ours.get_signature().format() == theirs.get_signature().format()


def test_paired_bootstrap_with_chrf_matches_sacrebleu(msmarco, monkeypatch):
    monkeypatch.setenv("SACREBLEU_SEED", "12345")
    hyps, refs = msmarco
    hyps, streams = hyps[:300], as_streams(refs[:300])
    named = systems(hyps)
    ours = our_significance.PairedTest(named, {"chrF": CHRF(references=streams), "BLEU": BLEU(references=streams)},
                                       None, test_type="bs", n_samples=200)()[1]
    theirs = their_significance.PairedTest(named, {"chrF": SacreCHRF(references=streams),
                                                   "BLEU": SacreBLEU(references=streams)},
                                           None, test_type="bs", n_samples=200)()[1]
    assert [vars(r) for r in ours["chrF2"]] == [vars(r) for r in theirs["chrF2"]]


# ---- TER ---------------------------------------------------------------------------------------
TER_SETTINGS = [{}, {"case_sensitive": True}, {"normalized": True}, {"no_punct": True},
                {"normalized": True, "asian_support": True}, {"no_punct": True, "asian_support": True, "case_sensitive": True}]


@pytest.mark.parametrize("kwargs", TER_SETTINGS)
def test_ter_class_matches_sacrebleu_on_real_text(msmarco, kwargs):
    hyps, refs = msmarco
    same_metric_on_real_text(TER(**kwargs), SacreTER(**kwargs), hyps[:500], refs[:500])  # sacrebleu's TER is slow


def test_ter_functions_cache_and_bootstrap_match_sacrebleu(msmarco, monkeypatch):
    monkeypatch.setenv("SACREBLEU_SEED", "12345")
    hyps, refs = msmarco
    hyps, streams = hyps[:400], as_streams(refs[:400])
    same_score(compat.corpus_ter(hyps, streams, normalized=True), sacrebleu.corpus_ter(hyps, streams, normalized=True))
    same_score(compat.sentence_ter(hyps[3], refs[3]), sacrebleu.sentence_ter(hyps[3], refs[3]))
    ours, theirs = TER(references=streams), SacreTER(references=streams)
    a, b = ours.corpus_score(hyps, None, n_bootstrap=200), theirs.corpus_score(hyps, None, n_bootstrap=200)
    assert (a._mean, a._ci) == (b._mean, b._ci)  # float32 sums of fractional mean lengths, scored in float32
    same_score(a, b)
    assert ours.get_signature().format() == theirs.get_signature().format()


def test_ter_of_empty_references_matches_sacrebleu():
    for hyp, refs in [("a b", [""]), ("", [""]), ("", ["a b c"]), ("x", ["", "x y"])]:
        same_score(TER().sentence_score(hyp, refs), SacreTER().sentence_score(hyp, refs))
    same_score(TER().corpus_score(["", "a"], [["", ""]]), SacreTER().corpus_score(["", "a"], [["", ""]]))


# ---- chrF and TER on generated Unicode ------------------------------------------------------------
CHRF_AND_TER = [(CHRF, SacreCHRF, kwargs) for kwargs in CHRF_SETTINGS] + [(TER, SacreTER, kwargs)
                                                                           for kwargs in TER_SETTINGS]


@settings(max_examples=300, deadline=None)
@given(data=segments, metric=st.sampled_from(CHRF_AND_TER))
def test_chrf_and_ter_equal_sacrebleu_on_generated_unicode(data, metric):
    ours, theirs, kwargs = metric
    hyps = [h for h, _ in data]
    streams = as_streams([r for _, r in data])
    same_score(ours(**kwargs).corpus_score(hyps, streams), theirs(**kwargs).corpus_score(hyps, streams))
    for h, refs in data:
        same_score(ours(**kwargs).sentence_score(h, refs), theirs(**kwargs).sentence_score(h, refs))
