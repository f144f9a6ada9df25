"""TER: bit-for-bit parity with sacrebleu 2.6 (tokeniser, segment statistics, sentence and corpus
scores) on real text and on generated input, and the errors of bad input."""
import itertools
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qascore.lexical.ter import TER, corpus_ter, sentence_ter, ter_from_statistics, ter_from_statistics_batch
from qascore.metric import CorpusScore
from qascore.metric import Statistics
from qascore.text import get_tokenizer
from qascore.text.tercom import TercomTokenizer

from mrc_reference import msmarco_pairs

sacrebleu = pytest.importorskip("sacrebleu")
import sacrebleu.metrics.lib_ter as lib_ter  # noqa: E402
from sacrebleu.metrics import TER as SacreTER  # noqa: E402
from sacrebleu.tokenizers.tokenizer_ter import TercomTokenizer as SacreTercom  # noqa: E402

OPTIONS = list(itertools.product([False, True], repeat=4))  # normalized, no_punct, asian_support, case_sensitive
OPTION_IDS = ["".join(k for k, on in zip("NPAC", o) if on) or "default" for o in OPTIONS]


def sacre_streams(references):
    """Per-hypothesis reference lists -> sacrebleu's reference streams (None where a segment has fewer)."""
    width = max(map(len, references))
    return [[refs[k] if k < len(refs) else None for refs in references] for k in range(width)]


def sacre_statistics(metric, hypotheses, references):
    return metric._extract_corpus_statistics(hypotheses, sacre_streams(references))


def assert_same_statistics(ours: np.ndarray, theirs: list):
    assert ours.dtype == np.float64 and ours.shape == (len(theirs), 2)
    assert ours.tolist() == [[float(e), float(r)] for e, r in theirs]


def assert_same_corpus(ours: CorpusScore, theirs):
    assert (ours["score"], ours["num_edits"], ours["ref_length"]) == (theirs.score, theirs.num_edits, theirs.ref_length)


# ---- tokeniser -----------------------------------------------------------------------------
# sacrebleu's own tokeniser tests (test/test_tokenizer_ter.py of the 2.6.0 sdist).
SACREBLEU_TOKENIZER_CASES = [
    ({}, "a b c d", "a b c d"),
    ({}, "", ""),
    ({}, "a b c d.", "a b c d."),
    ({}, "A B C D.", "a b c d."),
    ({"no_punct": True}, "a b c d.", "a b c d"),
    ({"no_punct": True}, "A ; B ) C : D.", "a b c d"),
    ({"normalized": True}, "a b (c) d.", "a b ( c ) d ."),
    ({"normalized": True}, "Jim's car.", "jim 's car ."),
    ({"normalized": True}, "4.2", "4.2"),
    ({"normalized": True, "asian_support": True}, "美众院公布对特", "美 众 院 公 布 对 特"),
    ({"normalized": True, "asian_support": True}, "りの拳銃を持", "りの 拳 銃 を 持"),
]


@pytest.mark.parametrize("options, text, expected", SACREBLEU_TOKENIZER_CASES)
def test_tokenizer_passes_sacrebleus_own_cases(options, text, expected):
    assert TercomTokenizer(**options)(text) == expected


# Characters every rule looks at: ASCII punctuation, digits, possessives, XML escapes, line breaks,
# Unicode whitespace, kana and CJK (each range), full-width punctuation, letters that lowercase oddly.
TRICKY = (list("aAbZ's.,-;:!?\"()0123456789 #$%*+/<=>@[\\]^_`{|}~\n\t\r")
          + ["&amp;", "&lt;", "&gt;", "&quot;", "'s ", "\n-", "..", ",.", "1.", ".1", "-1", "1-"]
          + list("İßΣσΑéりをアㇰ拳美㐀\u31c0\u2e80\u3300\uf900\ufe30\u3200\u3f22\u3001\u3002\u300c\uff61\u30fb"
                 "\uff0e\uff0c\uff1f\uff01\uff08\u00a0\u2028\u3000\x1c\x85"))
tricky_text = st.lists(st.sampled_from(TRICKY), max_size=30).map("".join)


@settings(max_examples=400, deadline=None)
@given(text=tricky_text, options=st.sampled_from(OPTIONS))
def test_tokenizer_matches_sacrebleu_on_generated_text(text, options):
    assert TercomTokenizer(*options)(text) == SacreTercom(*options)(text)


@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=40), options=st.sampled_from(OPTIONS))
def test_tokenizer_matches_sacrebleu_on_any_unicode(text, options):
    assert TercomTokenizer(*options)(text) == SacreTercom(*options)(text)
    # the one registry builds it by name, with the same options and output
    named = get_tokenizer("tercom", **dict(zip(("normalized", "no_punct", "asian_support", "case_sensitive"), options)))
    assert named(text) == SacreTercom(*options)(text) and named.tokenize(text) == named(text).split()


def test_tokenizer_signature_and_type_errors():
    assert TercomTokenizer().signature() == SacreTercom().signature() == "tercom"
    with pytest.raises(TypeError, match="expects a str"):
        TercomTokenizer()(None)


def test_lowercasing_facts_behind_the_fast_path():
    # TER._words skips rstrip and the second tokenisation of references when the tokeniser only
    # lowercases: true iff lowercasing never makes or unmakes whitespace and is idempotent.
    for code in range(0x110000):
        char = chr(code)
        low = char.lower()
        assert low.lower() == low
        assert all(c.isspace() for c in low) if char.isspace() else not any(c.isspace() for c in low)


# ---- the edit count ------------------------------------------------------------------------
def kernel_edits(pairs, n_jobs=1):
    """Our edit count of (hypothesis words, reference words) pairs, through TER's own path."""
    hyps = [" ".join(h) for h, _ in pairs]
    refs = [[" ".join(r)] for _, r in pairs]
    return TER(case_sensitive=True, n_jobs=n_jobs).segment_statistics(hyps, refs)[:, 0]


def test_edit_count_on_sacrebleus_own_cases():
    # sacrebleu's test/test_ter.py (a single shift, empty sides, a WMT example)
    cases = [("aaaa bbbb cccc dddd", "aaaa bbbb cccc dddd", 0), ("dddd eeee ffff", "aaaa bbbb cccc", 3),
             ("", "a", 1), ("a", "", 1), ("", "", 0), ("d e f g h a b c", "a b c d e f g h", 1)]
    ours = kernel_edits([(h.split(), r.split()) for h, r, _ in cases])
    assert ours.tolist() == [e for _, _, e in cases]


def test_long_shuffles_reach_the_candidate_limit_like_sacrebleu(monkeypatch):
    """Long texts of a tiny vocabulary: many shifts, ties everywhere, and the 1000-candidate limit."""
    checked = []
    original = lib_ter._shift

    def spy(*args):
        result = original(*args)
        checked.append(result[2])
        return result

    monkeypatch.setattr(lib_ter, "_shift", spy)
    rng = random.Random(3)
    pairs = []
    for n in (12, 30, 45, 60, 80, 100) * 3:
        hyp = [rng.choice("abcd") for _ in range(n)]
        cut = rng.randrange(n)
        ref = [w if rng.random() > 0.2 else "x" for w in hyp[cut:] + hyp[:cut]]
        pairs.append((hyp, ref))
    theirs = [lib_ter.translation_edit_rate(h, r)[0] for h, r in pairs]
    assert kernel_edits(pairs, n_jobs=2).tolist() == theirs
    assert sum(c >= 1000 for c in checked) >= 3  # searches that met the limit (and were discarded)


def test_unequal_lengths_widen_the_beam_like_sacrebleu():
    rng = random.Random(7)
    pairs = []
    for n, m in [(1, 120), (2, 130), (3, 260), (1, 51), (2, 101), (150, 1), (120, 3), (0, 40), (40, 0)]:
        pairs.append(([rng.choice("abc") for _ in range(n)], [rng.choice("abc") for _ in range(m)]))
    theirs = [lib_ter.translation_edit_rate(h, r)[0] for h, r in pairs]
    assert kernel_edits(pairs).tolist() == theirs


vocab_words = st.lists(st.sampled_from("a b c d e".split()), max_size=24)


@st.composite
def hyp_with_refs(draw):
    """A hypothesis and 1-3 references, each unrelated, a permutation of it (shifts fix it), or a
    permutation with a few words replaced."""
    hyp = draw(vocab_words)
    refs = []
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.integers(0, 2))
        if kind == 0 or not hyp:
            refs.append(draw(vocab_words))
        else:
            ref = list(draw(st.permutations(hyp)))
            if kind == 2:
                ref = [draw(st.sampled_from("a f")) if draw(st.booleans()) else w for w in ref]
            refs.append(ref)
    return " ".join(hyp), [" ".join(r) for r in refs]


@settings(max_examples=300, deadline=None)
@given(data=st.lists(hyp_with_refs(), min_size=1, max_size=5))
def test_statistics_match_sacrebleu_on_generated_word_sequences(data):
    hyps = [h for h, _ in data]
    refs = [r for _, r in data]
    ours = TER(n_jobs=2)
    assert_same_statistics(ours.segment_statistics(hyps, refs), sacre_statistics(SacreTER(), hyps, refs))
    assert_same_corpus(ours.corpus_score(hyps, refs), SacreTER().corpus_score(hyps, sacre_streams(refs)))


unicode_sentence = st.lists(st.sampled_from(TRICKY + ["word", "Word", "WORD", "it's", "4.5", "a-b"]),
                            max_size=20).map("".join)


@settings(max_examples=150, deadline=None)
@given(data=st.lists(st.tuples(unicode_sentence, st.lists(unicode_sentence, min_size=1, max_size=3)),
                     min_size=1, max_size=4),
       options=st.sampled_from(OPTIONS))
def test_scores_match_sacrebleu_on_unicode_and_punctuation(data, options):
    hyps = [h for h, _ in data]
    refs = [r for _, r in data]
    ours = TER(*options)
    assert_same_statistics(ours.segment_statistics(hyps, refs), sacre_statistics(SacreTER(*options), hyps, refs))
    assert ours.sentence_scores(hyps, refs).tolist() == [
        SacreTER(*options).sentence_score(h, r).score for h, r in data]


# ---- real text -----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def msmarco(shared_data):
    return msmarco_pairs(shared_data)


@pytest.mark.parametrize("options", OPTIONS, ids=OPTION_IDS)
def test_msmarco_matches_sacrebleu_for_every_option(msmarco, options):
    hyps, refs = msmarco[0][:250], msmarco[1][:250]
    assert len(set(map(len, refs))) > 1  # a varying number of references per segment
    ours, theirs = TER(*options, n_jobs=2), SacreTER(*options)
    assert_same_statistics(ours.segment_statistics(hyps, refs), sacre_statistics(theirs, hyps, refs))
    assert_same_corpus(ours.corpus_score(hyps, refs), theirs.corpus_score(hyps, sacre_streams(refs)))


def test_msmarco_long_answers_with_shifts(msmarco):
    """The longest answers against their own references, another long answer and (every other one)
    their own words reversed: long pairs where shifts happen. sacrebleu is slow here (seconds a
    pair), so it is run once and its own corpus and sentence formulas read its statistics."""
    hyps, refs = msmarco
    longest = sorted(range(len(hyps)), key=lambda i: -len(hyps[i].split()))[:8]
    long_hyps = [hyps[i] for i in longest]
    long_refs = [refs[i] + [hyps[longest[(k + 1) % 8]]] + ([" ".join(reversed(hyps[i].split()))] if k % 2 else [])
                 for k, i in enumerate(longest)]
    ours, theirs = TER(n_jobs=2), SacreTER()
    stats = ours.segment_statistics(long_hyps, long_refs)
    their_stats = sacre_statistics(theirs, long_hyps, long_refs)
    assert_same_statistics(stats, their_stats)
    assert_same_corpus(ours.corpus_score(long_hyps, long_refs), theirs._aggregate_and_compute(their_stats))
    assert ours.sentence_scores(long_hyps, long_refs).tolist() == [
        theirs._aggregate_and_compute([row]).score for row in their_stats]
    assert stats[:, 0].max() > 50 and min(map(len, long_hyps)) > 400


def test_msmarco_sentence_scores_and_threads(msmarco):
    hyps, refs = msmarco[0][:400], msmarco[1][:400]
    theirs = [SacreTER().sentence_score(h, r) for h, r in zip(hyps, refs)]
    one, two = TER(n_jobs=1).sentence_scores(hyps, refs), TER(n_jobs=2).sentence_scores(hyps, refs)
    assert one.tolist() == two.tolist() == sentence_ter(hyps, refs).tolist() == [t.score for t in theirs]
    for i in (0, 17, 399):
        ours = TER().sentence_score(hyps[i], refs[i])
        assert_same_corpus(ours, theirs[i])


# ---- score formula, Metric API -------------------------------------------------------------
@pytest.mark.parametrize("edits, length", [(0, 0.0), (3, 0.0), (0, 4.0), (3, 2.5), (7, 3.0), (1, 3.0),
                                           (12345, 6789.333333333333), (2, 1e-300)])
def test_score_formula_matches_sacrebleu(edits, length):
    theirs = SacreTER()._compute_score_from_stats([edits, length]).score
    assert ter_from_statistics(edits, length) == theirs
    assert ter_from_statistics_batch([edits], [length]).tolist() == [theirs]


def test_metric_api_streams_and_signature(msmarco):
    hyps, refs = msmarco[0][:120], msmarco[1][:120]
    ter = TER()
    whole = ter.corpus_score(hyps, refs)
    stats = ter.statistics(hyps[:50], refs[:50]) + ter.statistics(hyps[50:], refs[50:])
    assert isinstance(stats, Statistics) and stats.n == 120
    agg = ter.aggregate(stats)
    assert agg["num_edits"] == whole["num_edits"]
    assert agg["score"] == pytest.approx(whole["score"], rel=1e-12)  # the float sum of lengths splits
    ter.update(hyps, refs)
    assert ter.compute() == whole == corpus_ter(hyps, refs)
    assert whole.signature.startswith("qascore:ter|nrefs:var|case:lc|tok:tercom|norm:no|punct:yes|asian:no|version:")
    assert ter.signature() == whole.signature.replace("nrefs:var|", "")
    assert TER(case_sensitive=True, no_punct=True).score(["a"], [["a"]]).signature.startswith(
        "qascore:ter|nrefs:1|case:mixed|tok:tercom|norm:no|punct:no|asian:no|")
    scores = ter.score(hyps, refs)
    assert scores["ter"].tolist() == ter.sentence_scores(hyps, refs).tolist() and len(scores) == 120
    assert ter.settings() == {"normalized": False, "no_punct": False, "asian_support": False,
                              "case_sensitive": False}


def test_empty_corpus_and_empty_texts():
    ter = TER()
    assert ter.segment_statistics([], []).shape == (0, 2)
    empty = ter.corpus_score([], [])
    assert empty.values == {"score": 0.0, "num_edits": 0, "ref_length": 0.0}
    hyps, refs = ["", "a b", "", "  "], [[""], [""], ["x y", ""], ["\t"]]
    assert_same_statistics(ter.segment_statistics(hyps, refs), sacre_statistics(SacreTER(), hyps, refs))
    assert_same_corpus(ter.corpus_score(hyps, refs), SacreTER().corpus_score(hyps, sacre_streams(refs)))


# ---- errors --------------------------------------------------------------------------------
def test_bad_input_is_named():
    ter = TER()
    with pytest.raises(ValueError, match=r"references\[1\] is empty"):
        ter.segment_statistics(["a", "b"], [["a"], []])
    with pytest.raises(ValueError, match="hypotheses has 2 items but references has 1"):
        ter.corpus_score(["a", "b"], [["a"]])
    with pytest.raises(TypeError, match=r"hypotheses\[1\] must be str, got NoneType"):
        ter.sentence_scores(["a", None], [["a"], ["b"]])
    with pytest.raises(TypeError, match=r"references\[0\]\[1\] must be str, got int"):
        ter.score(["a"], [["a", 3]])
    with pytest.raises(TypeError, match="references"):
        ter.corpus_score(["a"], "a")
    with pytest.raises(TypeError, match="not a single string"):
        ter.sentence_score("a", "a")
    with pytest.raises(TypeError, match="hypotheses must be a sequence"):
        ter.corpus_score("a", [["a"]])
    with pytest.raises(ValueError, match="n_jobs"):
        TER(n_jobs=0)
