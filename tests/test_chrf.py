"""chrF / chrF++: equal (==) to sacrebleu 2.6's CHRF on real text and on generated Unicode text."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qascore.compat import sacrebleu as compat
from qascore.lexical.chrf import CHRF, corpus_chrf, sentence_chrf
from qascore.metric import CorpusScore, Statistics

from mrc_reference import evouna_pairs, msmarco_pairs

sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu.metrics import CHRF as SacreCHRF  # noqa: E402

CONFIGS = [
    {},                                                    # chrF
    {"word_order": 2},                                     # chrF++
    {"word_order": 2, "lowercase": True},
    {"whitespace": True},
    {"word_order": 2, "eps_smoothing": True},
    {"char_order": 4, "word_order": 3, "beta": 1},
    {"char_order": 0, "word_order": 2, "beta": 3, "lowercase": True},
    {"beta": 0.5, "whitespace": True, "eps_smoothing": True},
]


def as_streams(refs):
    """sacrebleu's reference streams of per-hypothesis lists (None pads the shorter lists)."""
    width = max(len(r) for r in refs)
    return [[r[j] if j < len(r) else None for r in refs] for j in range(width)]


def sacre_rows(options, hyps, refs):
    return SacreCHRF(**options)._extract_corpus_statistics(hyps, as_streams(refs))


def assert_same_as_sacrebleu(options, hyps, refs, *, n_jobs=None):
    """Rows, corpus score and sentence scores all equal sacrebleu's; returns our rows."""
    ours = CHRF(**options, n_jobs=n_jobs)
    theirs = SacreCHRF(**options)
    want = theirs._extract_corpus_statistics(hyps, as_streams(refs))
    rows = ours.segment_statistics(hyps, refs)
    assert rows.dtype == np.int64 and rows.shape == (len(hyps), 3 * ours.order)
    assert rows.tolist() == want
    corpus = ours.corpus_score(hyps, refs)
    assert corpus["score"] == theirs.corpus_score(hyps, as_streams(refs)).score
    assert corpus == corpus_chrf(hyps, refs, **options)
    assert ours.sentence_scores(hyps, refs).tolist() == [theirs._compute_f_score(w) for w in want]
    assert sentence_chrf(hyps, refs, **options).tolist() == [theirs._compute_f_score(w) for w in want]
    return rows


# ---- real text -----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def msmarco(shared_data):
    hyps, refs = msmarco_pairs(shared_data)
    assert len(set(map(len, refs))) > 1  # a varying number of references per segment
    return hyps, refs


@pytest.mark.parametrize("options", CONFIGS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "chrF")
def test_msmarco_matches_sacrebleu(msmarco, options):
    hyps, refs = msmarco
    if options not in CONFIGS[:2]:  # chrF and chrF++ on all 9,754 pairs, the variants on half
        hyps, refs = hyps[::2], refs[::2]
    assert_same_as_sacrebleu(options, hyps, refs)
    # sacrebleu's public sentence_score, one call per pair
    theirs, ours = SacreCHRF(**options), CHRF(**options)
    for h, r in list(zip(hyps, refs))[:150]:
        assert ours.sentence_score(h, r)["score"] == theirs.sentence_score(h, r).score


@pytest.mark.parametrize("options", [{}, {"word_order": 2}])
def test_evouna_long_answers_match_sacrebleu(shared_data, options):
    hyps, refs = evouna_pairs(shared_data)
    assert_same_as_sacrebleu(options, hyps[::9], refs[::9])


def test_threads_do_not_change_rows(msmarco):
    hyps, refs = msmarco
    one = CHRF(word_order=2, n_jobs=1).segment_statistics(hyps, refs)
    assert (CHRF(word_order=2, n_jobs=2).segment_statistics(hyps, refs) == one).all()


def test_metric_api_adds_up(msmarco):
    hyps, refs = msmarco[0][:600], msmarco[1][:600]
    metric = CHRF(word_order=2)
    whole = metric.corpus_score(hyps, refs)
    metric.update(hyps[:250], refs[:250])
    metric.update(hyps[250:], refs[250:])
    streamed = metric.compute()
    assert streamed == whole and streamed.n == 600
    assert streamed.signature == whole.signature  # nrefs:var in both
    assert metric.aggregate(metric.statistics(hyps, refs)) == whole
    assert metric.f_score(metric.segment_statistics(hyps, refs).sum(axis=0)) == whole["score"]
    scores = metric.score(hyps, refs)
    assert scores["chrf"].tolist() == metric.sentence_scores(hyps, refs).tolist()


# ---- generated text ------------------------------------------------------------------------
# Letters whose lowercase differs in length or form (İ, ẞ, Σ), astral and CJK characters, a lone
# surrogate, ASCII punctuation (chrF++ peels it off words), Unicode punctuation (it does not), and
# whitespace that str.split() knows (tab, newline, NBSP, U+3000, U+001C, U+0085).
ALPHABET = list("aAbBéÉİẞΣσ中文😀\ud800") + list(".,!?()'\"-;:") + ["«", "»", "…"] + list(" \t\n\u00a0\u3000\x1c\x85")
text = st.text(alphabet=ALPHABET, max_size=30) | st.sampled_from(["", " ", "\t \n", "a", ".", "(hi)", "a , b"])
options = st.fixed_dictionaries({
    "char_order": st.integers(0, 7), "word_order": st.integers(0, 3),
    "beta": st.sampled_from([0, 1, 2, 3, 0.5]), "lowercase": st.booleans(),
    "whitespace": st.booleans(), "eps_smoothing": st.booleans(),
}).filter(lambda o: o["char_order"] + o["word_order"] > 0)


@settings(max_examples=300, deadline=None)
@given(data=st.lists(st.tuples(text, st.lists(text, min_size=1, max_size=3)), min_size=1, max_size=5),
       options=options)
def test_generated_text_matches_sacrebleu(data, options):
    hyps = [h for h, _ in data]
    refs = [r for _, r in data]
    assert_same_as_sacrebleu(options, hyps, refs, n_jobs=1)
    theirs, ours = SacreCHRF(**options), CHRF(**options)
    h, r = data[0]
    assert ours.sentence_score(h, r)["score"] == theirs.sentence_score(h, r).score


counts = st.integers(0, 40)


@settings(max_examples=300, deadline=None)
@given(order=st.integers(1, 9), beta=st.sampled_from([0, 1, 2, 3, 0.5, 1.7]), eps=st.booleans(), data=st.data())
def test_f_score_is_sacrebleus_bit_for_bit(order, beta, eps, data):
    rows = data.draw(st.lists(st.lists(counts, min_size=3 * order, max_size=3 * order), min_size=1, max_size=4))
    theirs = SacreCHRF(char_order=order, beta=beta, eps_smoothing=eps)
    ours = CHRF(char_order=order, beta=beta, eps_smoothing=eps)
    want = [theirs._compute_f_score(r) for r in rows]
    assert ours.f_scores(rows).tolist() == want
    assert [ours.f_score(r) for r in rows] == want


def test_first_best_reference_wins_ties():
    # F1 of (precision 1/2, recall 1) equals F1 of (1, 1/2) to the bit: sacrebleu keeps the first.
    options = {"char_order": 1, "beta": 1}
    assert assert_same_as_sacrebleu(options, ["abcd"], [["ab", "abcdxxxx"]]).tolist() == [[4, 2, 2]]
    assert assert_same_as_sacrebleu(options, ["abcd"], [["abcdxxxx", "ab"]]).tolist() == [[4, 8, 4]]
    assert_same_as_sacrebleu({"char_order": 2}, ["ab"], [["zz", "ab", "ab"]])


def test_edge_texts_match_sacrebleu():
    hyps = ["", " ", "a", "", "(hi) there.", "x"]
    refs = [[""], ["a"], [" "], ["", "b"], ["hi (there)", "(hi)"], ["\u3000x\u3000"]]
    for options in CONFIGS:
        assert_same_as_sacrebleu(options, hyps, refs)


# ---- score objects -------------------------------------------------------------------------
def test_score_object_and_signature():
    score = CHRF(word_order=2).corpus_score(["the cat sat"], [["the cat sat down"]])
    assert isinstance(score, CorpusScore) and score.metric == "chrf" and list(score.values) == ["score"]
    assert score["score"] == SacreCHRF(word_order=2).corpus_score(["the cat sat"], [["the cat sat down"]]).score
    assert score.signature.startswith("qascore:chrf|nrefs:1|case:mixed|eff:yes|nc:6|nw:2|space:no|beta:2|")
    shaped = compat.CHRF(word_order=2).corpus_score(["the cat sat"], [["the cat sat down"]])  # sacrebleu's object
    assert shaped.name == "chrF2++" and shaped.score == score["score"]
    assert CHRF(lowercase=True, eps_smoothing=True).signature().startswith("qascore:chrf|case:lc|eff:no|nc:6|nw:0")
    assert repr(CHRF()) == ("CHRF(char_order=6, word_order=0, beta=2, lowercase=False, whitespace=False, "
                            "eps_smoothing=False)")


def test_empty_batch_scores_zero():
    metric = CHRF()
    assert metric.segment_statistics([], []).shape == (0, 18)
    assert metric.corpus_score([], [])["score"] == 0.0
    assert metric.sentence_scores([], []).shape == (0,)
    assert metric.aggregate(Statistics({"stats": np.zeros(18, dtype=np.int64), "refs": 0, "refs_squared": 0},
                                       0))["score"] == 0.0


# ---- bad input -----------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs,error,message", [
    ({"char_order": -1}, ValueError, "char_order must be >= 0"),
    ({"char_order": 1.5}, TypeError, "char_order must be an int"),
    ({"word_order": True}, TypeError, "word_order must be an int"),
    ({"char_order": 0, "word_order": 0}, ValueError, r"char_order \+ word_order must be >= 1"),
    ({"beta": -1}, ValueError, "beta must be a finite number >= 0"),
    ({"beta": float("nan")}, ValueError, "beta must be a finite number >= 0"),
    ({"beta": "2"}, TypeError, "beta must be a real number"),
    ({"beta": 10 ** 200}, ValueError, "beta is too large"),
    ({"lowercase": 1}, TypeError, "lowercase must be a bool"),
    ({"n_jobs": 0}, ValueError, "n_jobs must be a positive int"),
])
def test_bad_settings_are_named(kwargs, error, message):
    with pytest.raises(error, match=message):
        CHRF(**kwargs)


@pytest.mark.parametrize("hyps,refs,error,message", [
    (["a", "b"], [["a"], []], ValueError, r"references\[1\] is empty"),
    (["a"], [["a", None]], TypeError, r"references\[0\]"),
    (["a", 3], [["a"], ["b"]], TypeError, r"hypotheses\[1\] must be str"),
    ("abc", [["a"]], TypeError, "hypotheses must be a sequence of strings"),
    (["a"], [["a"], ["b"]], ValueError, "hypotheses has 1 items but references has 2"),
    (["a"], ["a"], TypeError, r"references\[0\] must be a list of strings"),
])
def test_bad_batches_are_named(hyps, refs, error, message):
    with pytest.raises(error, match=message):
        CHRF().segment_statistics(hyps, refs)


def test_bad_statistics_rows_are_refused():
    metric = CHRF(char_order=2)
    with pytest.raises(ValueError, match=r"3 \* \(char_order \+ word_order\) = 6 entries"):
        metric.f_score([1, 2, 3])
    with pytest.raises(ValueError, match="must be >= 0"):
        metric.f_score([1, 1, 1, 1, 1, -1])
    with pytest.raises(TypeError, match="must be integers"):
        metric.f_scores([[1.0, 1, 1, 1, 1, 1]])
    with pytest.raises(TypeError, match="references must be a list of strings"):
        metric.sentence_score("a", "a")
