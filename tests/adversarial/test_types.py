"""Array-library and other container types at every entry point (issue 36, class 7).

Each text entry point (native ROUGE/BLEU/chrF/TER, the rouge_score and sacrebleu drop-ins, the
AVA linear judge) and each statistics entry point (kendalltau, spearmanr, pearsonr, bootstrap)
gets the same data in many containers: plain lists, tuples, str subclasses (``numpy.str_``, a
user subclass that redefines ``__str__``), numpy arrays of str and of objects, pandas Series,
generators. The result must equal the plain-list result, and the peer's (rouge-score, sacrebleu,
scipy) where one exists; statistics results index and unpack as scipy's.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
import sacrebleu
import scipy.stats
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from rouge_score import rouge_scorer as peer_rouge

from qascore import stats
from qascore.ava import Ava
from qascore.compat import sacrebleu as compat_sb
from qascore.compat.rouge_score import rouge_scorer as compat_rs
from qascore.lexical import BLEU, Rouge, corpus_bleu, rouge, sentence_bleu
from qascore.lexical.chrf import CHRF
from qascore.lexical.ter import TER

try:
    import pandas as pd
except ImportError:  # pandas is not a test dependency; its cases are skipped without it
    pd = None


class Shouty(str):
    """A str subclass whose methods lie: scoring must read the characters, not call these."""

    def __str__(self):
        return "SHOUTY"

    def lower(self):
        return "shouty"

    def split(self, *args, **kwargs):
        return ["shouty"]


def _series(values, dtype=None):
    if pd is None:
        pytest.skip("pandas is not installed")
    return pd.Series(values, dtype=dtype)


# A batch of texts in every container a user may hold it in: name -> (texts -> container).
TEXT_BATCHES = {
    "list": list,
    "tuple": tuple,
    "numpy.str_ list": lambda texts: [np.str_(t) for t in texts],
    "str subclass list": lambda texts: [Shouty(t) for t in texts],
    "numpy str array": lambda texts: np.array(texts, dtype=str),
    "numpy object array": lambda texts: np.array(texts, dtype=object),
    "numpy object array of numpy.str_": lambda texts: np.array([np.str_(t) for t in texts] + [None], dtype=object)[:-1],
    "generator": lambda texts: (t for t in texts),
    "map": lambda texts: map(str, texts),
    "pandas object Series": lambda texts: _series(texts),
    "pandas string Series": lambda texts: _series(texts, "string"),
}
# One text: plain str, numpy's scalar and a subclass.
TEXTS = {"str": str, "numpy.str_": np.str_, "str subclass": Shouty}

PREDICTIONS = ["the cat sat on the mat .", "Der Hund bellt laut!", "", "a b c d e f", "naïve café — 東京 2024",
               "it's 3.5% of 1,000 (approx.)"]
REFERENCES = ["the cat is on the mat .", "Der Hund bellte.", "something", "a b c d", "cafe naive tokyo 2024",
              "about 35 of 1000"]
SECOND_REFS = ["a cat on a mat", "ein Hund", "", "f e d c b a", "東京", "it is 3.5 %"]
QUESTIONS = ["where did the cat sit", "what does the dog do", "what", "which letters", "where", "how much"]


def _plain(value):
    """Results compared as plain Python structures: numpy arrays as lists, floats bit for bit."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, np.ndarray):
        return value.tolist()
    if hasattr(value, "_asdict"):
        return _plain(value._asdict())
    if hasattr(value, "score") and hasattr(value, "format"):  # a sacrebleu-style score object
        return repr(value), value.score
    return value


def _columns(scores) -> dict:
    return {name: column.tolist() for name, column in scores.columns.items()}


# ---------------------------------------------------------------- text: batch entry points
# name -> (call on (predictions, references, second references), result as plain data)
BATCH_CALLS = {
    "rouge()": lambda p, r, r2: {k: _plain(v._asdict() if hasattr(v, "_asdict") else vars(v))
                                 for k, v in rouge(p, r, ["rouge1", "rouge2", "rougeL", "rougeLsum"]).items()},
    "Rouge.score": lambda p, r, r2: _columns(Rouge(["rouge1", "rougeL"], use_stemmer=True).score(p, r)),
    "Rouge unicode tokenizer": lambda p, r, r2: _columns(Rouge(["rouge2", "rougeLsum"], tokenizer="unicode").score(p, r)),
    "Rouge whitespace tokenizer": lambda p, r, r2: _columns(Rouge(["rouge1"], tokenizer="whitespace").score(p, r)),
    "Rouge two references": lambda p, r, r2: _columns(Rouge(["rouge1"]).score(p, [[a, b] for a, b in zip(r, r2)])),
    "BLEU.score": lambda p, r, r2: _columns(BLEU().score(p, [[a] for a in r])),
    "lexical.corpus_bleu": lambda p, r, r2: corpus_bleu(p, [[a] for a in r])["score"],
    "lexical.sentence_bleu": lambda p, r, r2: _plain(sentence_bleu(p, [[a] for a in r])),
    "BLEU intl": lambda p, r, r2: BLEU(tokenize="intl").corpus_score(p, [[a] for a in r])["score"],
    "CHRF.score": lambda p, r, r2: _columns(CHRF().score(p, [[a] for a in r])),
    "CHRF++ corpus": lambda p, r, r2: CHRF(word_order=2).corpus_score(p, [[a] for a in r])["score"],
    "TER corpus": lambda p, r, r2: TER().corpus_score(p, [[a] for a in r])["score"],
    "compat corpus_bleu": lambda p, r, r2: _plain(compat_sb.corpus_bleu(p, [r, r2])),
    "compat corpus_chrf": lambda p, r, r2: _plain(compat_sb.corpus_chrf(p, [r, r2])),
    "compat corpus_ter": lambda p, r, r2: _plain(compat_sb.corpus_ter(p, [r])),
    "compat BLEU object": lambda p, r, r2: _plain(compat_sb.BLEU(tokenize="char").corpus_score(p, [r])),
    "compat RougeScorer.score_batch": lambda p, r, r2: [
        _plain(s) for s in compat_rs.RougeScorer(["rouge1", "rougeL", "rougeLsum"]).score_batch(r, p)],
    "Ava linear": lambda p, r, r2: _columns(Ava("linear").score(list(QUESTIONS), r, p)),
}

# Peers on the same data (a list of plain or subclassed str: what the peer itself accepts).
PEER_CALLS = {
    "compat corpus_bleu": lambda p, r, r2: _plain(sacrebleu.corpus_bleu(p, [r, r2])),
    "compat corpus_chrf": lambda p, r, r2: _plain(sacrebleu.corpus_chrf(p, [r, r2])),
    "compat corpus_ter": lambda p, r, r2: _plain(sacrebleu.corpus_ter(p, [r])),
}


@pytest.mark.parametrize("container", list(TEXT_BATCHES))
@pytest.mark.parametrize("entry", list(BATCH_CALLS))
def test_batch_entry_points_read_every_container_as_a_list(entry, container):
    call, make = BATCH_CALLS[entry], TEXT_BATCHES[container]
    expected = call(list(PREDICTIONS), list(REFERENCES), list(SECOND_REFS))
    got = call(make(PREDICTIONS), make(REFERENCES), make(SECOND_REFS))
    assert got == expected


@pytest.mark.parametrize("kind", ["numpy.str_", "str subclass"])
@pytest.mark.parametrize("entry", list(PEER_CALLS))
def test_batch_entry_points_equal_the_peer_on_str_subclasses(entry, kind):
    make = TEXTS[kind]
    p, r, r2 = ([make(t) for t in texts] for texts in (PREDICTIONS, REFERENCES, SECOND_REFS))
    plain_peer = PEER_CALLS[entry](list(PREDICTIONS), list(REFERENCES), list(SECOND_REFS))
    if kind == "numpy.str_":  # the peer reads numpy.str_ as text; a lying subclass is ours alone
        assert PEER_CALLS[entry](p, r, r2) == plain_peer
    assert BATCH_CALLS[entry](p, r, r2) == plain_peer


def test_a_subclass_is_read_by_its_characters_not_its_methods():
    # Shouty's lower(), split() and __str__ lie; the scores are those of the plain strings
    lying = [Shouty(t) for t in PREDICTIONS]
    assert _columns(BLEU(lowercase=True).score(lying, [[r] for r in REFERENCES])) == \
        _columns(BLEU(lowercase=True).score(PREDICTIONS, [[r] for r in REFERENCES]))
    assert compat_sb.sentence_chrf(Shouty("the cat"), [Shouty("a cat")]).score == \
        sacrebleu.sentence_chrf("the cat", ["a cat"]).score


# ---------------------------------------------------------------- text: one-pair entry points
PAIR_CALLS = {
    "compat RougeScorer.score": (
        lambda h, r: _plain(compat_rs.RougeScorer(["rouge1", "rouge2", "rougeL", "rougeLsum"]).score(r, h)),
        lambda h, r: _plain(peer_rouge.RougeScorer(["rouge1", "rouge2", "rougeL", "rougeLsum"]).score(r, h))),
    "compat RougeScorer.score stemmed": (
        lambda h, r: _plain(compat_rs.RougeScorer(["rouge1", "rougeL"], use_stemmer=True).score(r, h)),
        lambda h, r: _plain(peer_rouge.RougeScorer(["rouge1", "rougeL"], use_stemmer=True).score(r, h))),
    "compat RougeScorer.score_multi": (
        lambda h, r: _plain(compat_rs.RougeScorer(["rouge1", "rougeL"]).score_multi([r, r + " extra"], h)),
        lambda h, r: _plain(peer_rouge.RougeScorer(["rouge1", "rougeL"]).score_multi([r, r + " extra"], h))),
    "compat sentence_bleu": (lambda h, r: _plain(compat_sb.sentence_bleu(h, [r])),
                             lambda h, r: _plain(sacrebleu.sentence_bleu(h, [r]))),
    "compat sentence_chrf": (lambda h, r: _plain(compat_sb.sentence_chrf(h, [r])),
                             lambda h, r: _plain(sacrebleu.sentence_chrf(h, [r]))),
    "compat sentence_ter": (lambda h, r: _plain(compat_sb.sentence_ter(h, [r])),
                            lambda h, r: _plain(sacrebleu.sentence_ter(h, [r]))),
    "compat BLEU.sentence_score": (lambda h, r: _plain(compat_sb.BLEU(effective_order=True).sentence_score(h, [r])),
                                   lambda h, r: _plain(sacrebleu.BLEU(effective_order=True).sentence_score(h, [r]))),
    "BLEU.sentence_score": (lambda h, r: BLEU(effective_order=True).sentence_score(h, [r])["score"],
                            lambda h, r: sacrebleu.BLEU(effective_order=True).sentence_score(h, [r]).score),
    "CHRF.sentence_score": (lambda h, r: CHRF().sentence_score(h, [r])["score"],
                            lambda h, r: sacrebleu.CHRF().sentence_score(h, [r]).score),
}


@pytest.mark.parametrize("kind", list(TEXTS))
@pytest.mark.parametrize("entry", list(PAIR_CALLS))
@pytest.mark.parametrize("row", range(len(PREDICTIONS)))
def test_pair_entry_points_read_subclasses_as_their_text_and_equal_the_peer(entry, kind, row):
    ours, peer = PAIR_CALLS[entry]
    make = TEXTS[kind]
    h, r = PREDICTIONS[row], REFERENCES[row]
    if entry.startswith("compat RougeScorer") and not r.split():
        r = "x"  # keep rouge-score's own tokeniser away from its empty-text edge (not this test's subject)
    expected = peer(h, r)
    assert ours(make(h), make(r)) == expected
    if kind == "numpy.str_":
        assert peer(make(h), make(r)) == expected  # the peer accepts it too


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(max_size=30), min_size=1, max_size=6), st.data())
def test_generated_texts_score_alike_in_any_container(texts, data):
    refs = data.draw(st.lists(st.text(max_size=30), min_size=len(texts), max_size=len(texts)))
    container = data.draw(st.sampled_from([c for c in TEXT_BATCHES if not c.startswith("pandas")]))
    # numpy's fixed-width str itself drops trailing NULs: that array no longer holds these texts
    assume(container != "numpy str array" or not any(t.endswith("\x00") for t in texts + refs))
    make = TEXT_BATCHES[container]
    for entry in ("Rouge.score", "BLEU.score", "CHRF.score", "compat corpus_bleu"):
        call = BATCH_CALLS[entry]
        assert call(make(texts), make(refs), make(refs)) == call(list(texts), list(refs), list(refs))


# Batches with no order, single strings and non-strings stay errors that name the argument.
REFUSED = [
    ("rouge() set", lambda: rouge({"a", "b"}, ["a", "b"]),  # type: ignore[arg-type]  # the case under test
     r"predictions must be .*not a set"),
    ("rouge() numpy.str_ batch", lambda: rouge(np.str_("a b"), ["a b"]), r"predictions must be .*not a single str"),
    ("rouge() dict references", lambda: rouge(["a"], {"a": 1}), r"references must be .*not a dict"),
    ("BLEU set", lambda: BLEU().score({"a"}, [["a"]]), r"hypotheses must be .*not a set"),
    ("BLEU numpy.str_ batch", lambda: BLEU().score(np.str_("a b"), [["a b"]]), r"not a single string"),
    ("CHRF int in an object array", lambda: CHRF().score(np.array(["a", 3], dtype=object), [["a"], ["b"]]),
     r"hypotheses\[1\] must be str, got int"),
    ("TER 3-D array", lambda: TER().score(np.array([[["a"]]]), [["a"]]), r"hypotheses must be .*3-D array"),
    ("compat corpus_bleu set", lambda: compat_sb.corpus_bleu({"a"}, [["a"]]), r"`hyps` should be a sequence"),
    ("compat sentence_bleu set refs", lambda: compat_sb.sentence_bleu("a", {"a"}), r"`refs` should be a sequence"),
    ("compat RougeScorer bytes", lambda: compat_rs.RougeScorer(["rouge1"]).score(b"a", "a"),
     r"target must be str, got bytes"),
    ("compat RougeScorer None", lambda: compat_rs.RougeScorer(["rouge1"]).score("a", None),
     r"prediction must be str, got NoneType"),
    ("Ava set", lambda: Ava("linear").score({"q"}, ["r"], ["t"]), r"questions must be .*not a set"),
    ("Ava numpy.str_ references", lambda: Ava("linear").score(["q"], np.str_("r"), ["t"]),
     r"references must be .*not a single str"),
]


@pytest.mark.parametrize("case", REFUSED, ids=[c[0] for c in REFUSED])
def test_unordered_batches_single_strings_and_non_strings_are_refused(case):
    _, call, match = case
    with pytest.raises(TypeError, match=match):
        call()


def test_a_missing_value_in_a_pandas_string_series_is_refused_by_row():
    series = _series(["a", None], "string")
    with pytest.raises(TypeError, match=r"predictions\[1\] must be str, got NAType"):
        Rouge().score(series, ["a", "b"])
    with pytest.raises(TypeError, match=r"hypotheses\[1\] must be str, got NAType"):
        BLEU().score(series, [["a"], ["b"]])


# Per-item reference lists as a 2-D numpy array (one row per item) read as lists of rows.
def test_two_dimensional_reference_arrays_are_rows_of_references():
    refs = [[a, b] for a, b in zip(REFERENCES, SECOND_REFS)]
    grid = np.array(refs)
    assert _columns(Rouge(["rouge1", "rougeL"]).score(PREDICTIONS, grid)) == \
        _columns(Rouge(["rouge1", "rougeL"]).score(PREDICTIONS, refs))
    assert _columns(BLEU().score(PREDICTIONS, grid)) == _columns(BLEU().score(PREDICTIONS, refs))
    assert _columns(Ava("linear").score(QUESTIONS, grid, PREDICTIONS)) == \
        _columns(Ava("linear").score(QUESTIONS, refs, PREDICTIONS))
    assert _plain(compat_sb.corpus_chrf(PREDICTIONS, np.array([REFERENCES, SECOND_REFS]))) == \
        _plain(sacrebleu.corpus_chrf(PREDICTIONS, [REFERENCES, SECOND_REFS]))


# ---------------------------------------------------------------- statistics
def _numbers(seed: int, n: int, ties: bool):
    rng = np.random.default_rng(seed)
    if ties:
        return rng.integers(0, 5, n).astype(float).tolist(), rng.integers(0, 4, n).astype(float).tolist()
    x = rng.standard_normal(n)
    return x.tolist(), (x + rng.standard_normal(n)).tolist()


NUMBER_SAMPLES = {
    "list": list,
    "tuple": tuple,
    "numpy float array": np.asarray,
    "numpy object array": lambda v: np.array(v, dtype=object),
    "numpy float32-exact array": lambda v: np.asarray(v, dtype=np.float64),
    "generator": lambda v: (a for a in v),
    "map": lambda v: map(float, v),
    "iterator": iter,
    "pandas Series": lambda v: _series(v),
}

STAT_CALLS = {
    "kendalltau": (lambda x, y: stats.kendalltau(x, y), lambda x, y: scipy.stats.kendalltau(x, y)),
    "kendalltau tau-c": (lambda x, y: stats.kendalltau(x, y, variant="c"),
                         lambda x, y: scipy.stats.kendalltau(x, y, variant="c")),
    "spearmanr": (lambda x, y: stats.spearmanr(x, y), lambda x, y: scipy.stats.spearmanr(x, y)),
    "pearsonr": (lambda x, y: stats.pearsonr(x, y), lambda x, y: scipy.stats.pearsonr(x, y)),
}


def _close(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15)


@pytest.mark.parametrize("ties", [False, True], ids=["distinct", "ties"])
@pytest.mark.parametrize("container", list(NUMBER_SAMPLES))
@pytest.mark.parametrize("entry", list(STAT_CALLS))
def test_statistics_read_every_container_and_equal_scipy(entry, container, ties):
    ours, peer = STAT_CALLS[entry]
    make = NUMBER_SAMPLES[container]
    x, y = _numbers(len(entry) + ties, 40, ties)
    plain = ours(list(x), list(y))
    got = ours(make(x), make(y))
    assert (got.statistic, got.pvalue, got.n) == (plain.statistic, plain.pvalue, plain.n)
    theirs = peer(np.asarray(x), np.asarray(y))
    assert _close(got.statistic, theirs.statistic) and _close(got.pvalue, theirs.pvalue)


@pytest.mark.parametrize("container", list(NUMBER_SAMPLES))
def test_bootstrap_reads_every_container(container):
    make = NUMBER_SAMPLES[container]
    x, y = _numbers(7, 30, False)
    options = {"n_resamples": 200, "seed": 3}
    plain = stats.bootstrap(list(x), "mean", **options)
    got = stats.bootstrap(make(x), "mean", **options)
    assert (got.statistic, got.low, got.high) == (plain.statistic, plain.low, plain.high)
    paired = stats.bootstrap((list(x), list(y)), "pearson", **options)
    got = stats.bootstrap((make(x), make(y)), "pearson", **options)
    assert (got.statistic, got.low, got.high) == (paired.statistic, paired.low, paired.high)


def test_bootstrap_with_scipy_stream_equals_scipy_on_a_generator():
    x, _ = _numbers(11, 25, False)
    ours = stats.bootstrap((v for v in x), "mean", n_resamples=300, seed=5, rng="scipy", method="percentile")
    theirs = scipy.stats.bootstrap((np.asarray(x),), np.mean, n_resamples=300, rng=5, method="percentile",
                                   vectorized=True)
    assert _close(ours.low, theirs.confidence_interval.low) and _close(ours.high, theirs.confidence_interval.high)


@pytest.mark.parametrize("entry", list(STAT_CALLS) + ["gamma"])
def test_statistics_results_index_and_unpack_as_scipy(entry):
    x, y = _numbers(5, 30, True)
    res = stats.goodman_kruskal_gamma(x, y) if entry == "gamma" else STAT_CALLS[entry][0](x, y)
    statistic, pvalue = res
    assert (res[0], res[1]) == (statistic, pvalue) == (res.statistic, res.pvalue)
    assert res[-1] == res[1] and res[:] == (statistic, pvalue) and len(res) == 2 and tuple(res) == (statistic, pvalue)
    with pytest.raises(IndexError):
        res[2]
    if entry != "gamma":
        theirs = STAT_CALLS[entry][1](x, y)
        assert len(theirs) == len(res) and _close(res[0], theirs[0]) and _close(res[1], theirs[1])


def test_rows_results_index_and_unpack():
    rng = np.random.default_rng(2)
    X, Y = rng.standard_normal((3, 20)), rng.standard_normal((3, 20))
    res = stats.kendalltau_rows(X, Y)
    statistic, pvalue = res
    assert res[0] is res.statistic and res[1] is res.pvalue and len(res) == 2
    assert statistic.tolist() == [stats.kendalltau(a, b)[0] for a, b in zip(X, Y)]


@pytest.mark.parametrize("bad,match", [
    ({1.0, 2.0, 3.0}, "ordered sequence"), ({1: 2.0, 2: 3.0}, "ordered sequence"), ("123", "not a single str")])
def test_unordered_or_string_samples_are_refused(bad, match):
    with pytest.raises(TypeError, match=match):
        stats.kendalltau(bad, [1.0, 2.0, 3.0])


# kendalltau on one long pair (numpy's sorts, then the Fenwick count): bit for bit scipy's, with
# and without ties, NaN omitted, and at the sizes where the single-pair path takes over.
@pytest.mark.parametrize("n", [1999, 2000, 2001, 20_000])
@pytest.mark.parametrize("shape", ["distinct", "few levels", "x constant runs", "reversed", "nan omitted"])
def test_long_kendalltau_is_bit_identical_to_scipy(n, shape):
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n)
    y = x + rng.standard_normal(n)
    if shape == "few levels":
        x, y = rng.integers(0, 3, n).astype(float), rng.integers(0, 50, n).astype(float)
    elif shape == "x constant runs":
        x = np.repeat(np.arange(n // 100 + 1, dtype=float), 100)[:n]
        y = np.round(y, 1)
    elif shape == "reversed":
        x = np.arange(n, dtype=float)
        y = -x
    options = {}
    if shape == "nan omitted":
        x[rng.integers(0, n, n // 10)] = np.nan
        options = {"nan_policy": "omit"}
    for variant in "bc":
        ours = stats.kendalltau(x, y, variant=variant, **options)
        theirs = scipy.stats.kendalltau(x, y, variant=variant, **options)
        assert (ours.statistic, ours.pvalue) == (theirs.statistic, theirs.pvalue)
    rows = stats.kendalltau_rows(np.vstack([x, x]), np.vstack([y, y]), **options)  # two rows: the Numba path
    assert rows.statistic.tolist() == [stats.kendalltau(x, y, **options).statistic] * 2
