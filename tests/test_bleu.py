"""BLEU: parity with sacrebleu 2.6 on real text, and a plain-Python oracle on generated input."""
import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qascore.compat import sacrebleu as compat
from qascore.lexical.bleu import BLEU, bleu_from_statistics, closest_reference_lengths, corpus_bleu, summed_statistics

from mrc_reference import evouna_pairs, msmarco_pairs

sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu.metrics import BLEU as SacreBLEU  # noqa: E402

TOKENIZERS = ["13a", "none", "intl", "zh", "char"]
SMOOTHING = ["none", "floor", "add-k", "exp"]


# ---- plain-Python oracle (independent of the kernels) -------------------------------------
def oracle_statistics(hyp_tokens, refs_tokens, max_order):
    correct, total = [0] * max_order, [0] * max_order
    for n in range(1, max_order + 1):
        hyp = Counter(tuple(hyp_tokens[i:i + n]) for i in range(len(hyp_tokens) - n + 1))
        best = Counter()
        for ref in refs_tokens:
            for g, c in Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1)).items():
                best[g] = max(best[g], c)
        correct[n - 1] = sum(min(c, best[g]) for g, c in hyp.items())
        total[n - 1] = max(len(hyp_tokens) - n + 1, 0)
    ref_len = min((abs(len(hyp_tokens) - len(r)), len(r)) for r in refs_tokens)[1]
    return len(hyp_tokens), ref_len, correct, total


words = st.lists(st.sampled_from("a b c d e . , 1 2".split()), max_size=14).map(" ".join)


@settings(max_examples=200, deadline=None)
@given(data=st.lists(st.tuples(words, st.lists(words, min_size=1, max_size=3)), min_size=1, max_size=6),
       order=st.integers(1, 5))
def test_statistics_match_plain_python_counting(data, order):
    hyps = [h for h, _ in data]
    refs = [r for _, r in data]
    stats = BLEU("none", max_ngram_order=order, n_jobs=2).segment_statistics(hyps, refs)
    for i, (h, rs) in enumerate(data):
        sys_len, ref_len, correct, total = oracle_statistics(h.split(), [r.split() for r in rs], order)
        assert stats.sys_len[i] == sys_len and stats.ref_len[i] == ref_len
        assert stats.correct[i].tolist() == correct and stats.total[i].tolist() == total


@settings(max_examples=120, deadline=None)
@given(data=st.lists(st.tuples(words, st.lists(words, min_size=1, max_size=3)), min_size=1, max_size=5),
       smooth=st.sampled_from(SMOOTHING), eff=st.booleans())
def test_scores_match_sacrebleu_on_generated_text(data, smooth, eff):
    hyps = [h for h, _ in data]
    refs = [r for _, r in data]
    ours = BLEU("13a", smooth_method=smooth, effective_order=eff).corpus_score(hyps, refs)
    assert corpus_bleu(hyps, refs, smooth_method=smooth, effective_order=eff) == ours
    width = max(len(r) for r in refs)
    streams = [[r[j] if j < len(r) else None for r in refs] for j in range(width)]
    theirs = SacreBLEU(tokenize="13a", smooth_method=smooth, effective_order=eff).corpus_score(hyps, streams)
    assert ours["score"] == theirs.score
    assert (ours["sys_len"], ours["ref_len"]) == (theirs.sys_len, theirs.ref_len)
    assert ours["bp"] == theirs.bp
    assert [ours[f"precision_{k}"] for k in range(1, 5)] == theirs.precisions
    # the counts with add-k's adjustment are sacrebleu's object's, in compat
    shaped = compat.BLEU(smooth_method=smooth, effective_order=eff).corpus_score(hyps, streams)
    assert shaped.counts == theirs.counts and shaped.totals == theirs.totals and shaped.score == theirs.score


def test_final_formula_is_bit_identical_where_numpy_exp_is_not():
    # numpy's exp differs from math.exp (libm) in the last ulp here; sacrebleu uses math.exp
    hyp, refs = "now year over more used your at", ["only more there said"]
    assert compat.sentence_bleu(hyp, refs).score == sacrebleu.sentence_bleu(hyp, refs).score == 6.567274736060395


def test_closest_reference_length_prefers_shorter_on_ties():
    out = closest_reference_lengths(np.array([5, 5, 0]), np.array([3, 7, 7, 4, 6, 2]), np.array([0, 2, 5, 6]))
    assert out.tolist() == [3, 4, 2]


# ---- real data ------------------------------------------------------------------------------
def as_streams(refs):
    width = max(len(r) for r in refs)
    return [[r[j] if j < len(r) else None for r in refs] for j in range(width)]


@pytest.fixture(scope="module", params=["msmarco", "evouna"])
def real_pairs(request, shared_data):
    return (msmarco_pairs if request.param == "msmarco" else evouna_pairs)(shared_data)


@pytest.mark.parametrize("tok", TOKENIZERS)
def test_corpus_and_sentence_bleu_match_sacrebleu_on_real_data(real_pairs, tok):
    hyps, refs = real_pairs
    if len(hyps) > 6000:  # EVOUNA: every 7th of its 17k answers (7 is coprime to its 5 systems)
        hyps, refs = hyps[::7], refs[::7]
    streams = as_streams(refs)
    # sacrebleu's own segment statistics (tokenised once), then its own compute_bleu per setting.
    sacre = SacreBLEU(tokenize=tok)
    sacre_stats = sacre._extract_corpus_statistics(hyps, streams)
    ours_stats = BLEU(tok).segment_statistics(hyps, refs)
    ours_rows = np.column_stack([ours_stats.sys_len, ours_stats.ref_len, ours_stats.correct, ours_stats.total])
    assert ours_rows.tolist() == [list(map(int, s)) for s in sacre_stats]
    totals = [sum(col) for col in zip(*sacre_stats)]
    for smooth in SMOOTHING:
        for eff in (False, True):
            metric = BLEU(tok, smooth_method=smooth, effective_order=eff)
            ours = metric.aggregate(summed_statistics(ours_stats, refs))
            theirs = SacreBLEU.compute_bleu(list(totals[2:6]), list(totals[6:]), totals[0], totals[1],
                                            smooth_method=smooth, effective_order=eff)
            assert ours["score"] == theirs.score, (smooth, eff)
            assert [ours[f"precision_{k}"] for k in range(1, 5)] == theirs.precisions
            shaped = compat.BLEU.compute_bleu(list(totals[2:6]), list(totals[6:]), totals[0], totals[1],
                                              smooth_method=smooth, effective_order=eff)
            assert shaped.counts == theirs.counts and shaped.totals == theirs.totals
        got = bleu_from_statistics(ours_stats.correct, ours_stats.total, ours_stats.sys_len, ours_stats.ref_len,
                                   smooth_method=smooth, effective_order=True)[0]
        want = [SacreBLEU.compute_bleu(list(s[2:6]), list(s[6:]), s[0], s[1], smooth_method=smooth,
                                       effective_order=True).score for s in sacre_stats]
        assert got.tolist() == want, smooth


def test_public_calls_match_sacrebleu(shared_data):
    hyps, refs = msmarco_pairs(shared_data)
    hyps, refs = hyps[:400], refs[:400]
    streams = as_streams(refs)
    for tok in TOKENIZERS:
        ours = compat.corpus_bleu(hyps, streams, tokenize=tok)
        theirs = sacrebleu.corpus_bleu(hyps, streams, tokenize=tok)
        assert ours.score == theirs.score
        for h, r in list(zip(hyps, refs))[:40]:
            a = compat.sentence_bleu(h, r, tokenize=tok, smooth_method="floor")
            b = sacrebleu.sentence_bleu(h, r, tokenize=tok, smooth_method="floor")
            assert a.score == b.score
            assert (a.sys_len, a.ref_len, a.bp) == (b.sys_len, b.ref_len, b.bp)


def test_batch_sentence_scores_equal_single_calls():
    hyps = ["the cat is on the mat", "", "a b c d", "hello there general kenobi"]
    refs = [["there is a cat on the mat", "a cat is on the mat"], ["x"], ["a b c d"], ["hello there !"]]
    batch = BLEU(effective_order=True).sentence_scores(hyps, refs)
    single = [compat.sentence_bleu(h, r).score for h, r in zip(hyps, refs)]
    want = [sacrebleu.sentence_bleu(h, r).score for h, r in zip(hyps, refs)]
    assert batch.tolist() == single
    assert batch.tolist() == want


# ---- defined outcomes ---------------------------------------------------------------------
def test_empty_inputs_have_defined_scores():
    assert compat.sentence_bleu("", ["a b"]).score == 0.0
    assert compat.sentence_bleu("", [""]).score == sacrebleu.sentence_bleu("", [""]).score
    score = compat.corpus_bleu(["", ""], [["", ""]])
    assert score.score == 0.0 and score.bp == 1.0 and score.sys_len == 0


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="the reference streams have 1 lines but there are 2 hypotheses"):
        compat.corpus_bleu(["a", "b"], [["a"]])
    with pytest.raises(ValueError, match="segment 0 has no reference"):
        compat.corpus_bleu(["a"], [[None]])
    with pytest.raises(TypeError, match=r"hypotheses\[1\] must be str"):
        BLEU().corpus_score(["a", 3], [["a"], ["b"]])
    with pytest.raises(ValueError, match="unknown smooth_method"):
        BLEU(smooth_method="magic")


def test_signature_records_settings():
    score = BLEU("zh", smooth_method="floor").corpus_score(["a b"], [["a b"]])
    assert score.signature.startswith("qascore:bleu|nrefs:1|case:mixed|eff:no|tok:zh|smooth:floor[0.10]|ngram:4")


def test_unsmoothed_zero_precision_gives_zero_like_sacrebleu():
    s, *_ = bleu_from_statistics([[3, 0, 0, 0]], [[3, 2, 1, 0]], 3, 3, smooth_method="none")
    assert s[0] == 0.0
    assert math.isclose(SacreBLEU.compute_bleu([3, 0, 0, 0], [3, 2, 1, 0], 3, 3, smooth_method="none").score, 0.0)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.text(max_size=8), st.lists(st.text(max_size=8), min_size=1, max_size=4),
                          st.booleans()), max_size=30))
def test_segment_layout_is_each_hypothesis_then_its_references(segments):
    """The layout the BLEU, chrF and TER kernels read: built without a loop per segment, equal to
    the plain one for any mix of reference counts, lists and tuples."""
    from qascore.lexical.segments import segment_lines

    hyps = [h for h, _, _ in segments]
    refs = [tuple(r) if as_tuple else r for _, r, as_tuple in segments]
    seg = segment_lines(hyps, refs)
    plain = [line for h, r in zip(hyps, refs) for line in (h, *r)]
    assert seg.lines == plain
    for i, (h, r) in enumerate(zip(hyps, refs)):
        assert seg.lines[seg.hyp_rows[i]] == h
        assert [seg.lines[k] for k in seg.ref_rows[seg.groups[i]:seg.groups[i + 1]]] == list(r)
