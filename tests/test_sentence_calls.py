"""The one-segment road of the sentence-level entry points (one hypothesis, a short list of plain
str references: no batch layout, the kernels' one-segment functions, Python floats) gives what the
general road and sacrebleu give, bit for bit, for every option; anything else takes the general,
checked road; the ``sentence_*`` functions' cached metrics behave as fresh ones."""
from __future__ import annotations

import logging

import numpy as np
import pytest

from qascore.compat import sacrebleu as compat
from qascore.lexical.bleu import BLEU, bleu_from_statistics, bleu_of_counts
from qascore.lexical.chrf import CHRF
from qascore.lexical.ter import TER

sacrebleu = pytest.importorskip("sacrebleu")

# Real-looking segments and the edge cases: empty sides, whitespace only, 13a's escapes and
# number rules, non-Latin scripts, uneven reference counts and lengths.
SEGMENTS = [
    ("The cat sat on the mat.", ["A cat sat on a mat.", "The cat was sitting on the mat."]),
    ("Ein 28-jähriger Koch wurde tot aufgefunden.", ["Ein 28-jähriger Koch, der kürzlich umgezogen war, ist tot."]),
    ("It costs 3.5 dollars, i.e. $3.50 &amp; more-or-less.", ["It costs $3.50 &quot;more&quot; or less ."]),
    ("", ["a b c"]),
    ("a b c", [""]),
    ("", [""]),
    ("   ", ["  x  "]),
    ("yes", ["Yes, it is.", "no", "yes yes yes yes"]),
    ("他 说 这 是 好 的", ["他说这是好的。", "这是好的"]),
    ("the the the the the the", ["the cat", "the the"]),
    ("line one\nline two<skipped> end-\nof", ["line one line two end of"]),
]

BLEU_OPTIONS = [
    {},
    {"effective_order": True},
    {"smooth_method": "none"},
    {"smooth_method": "floor"},
    {"smooth_method": "floor", "smooth_value": 0.3},
    {"smooth_method": "add-k"},
    {"smooth_method": "add-k", "smooth_value": 0.5, "effective_order": True},
    {"lowercase": True, "effective_order": True},
    {"max_ngram_order": 2},
    *({"tokenize": tok, "effective_order": True} for tok in ("none", "intl", "zh", "char")),
]


def same_score(ours, theirs):
    assert type(ours).__name__ == type(theirs).__name__
    assert vars(ours) == {k: v for k, v in vars(theirs).items()}
    assert str(ours) == str(theirs)


@pytest.fixture(autouse=True)
def _quiet(caplog):
    caplog.set_level(logging.ERROR)  # BLEU without effective order warns on every sentence call


@pytest.mark.parametrize("options", BLEU_OPTIONS, ids=repr)
def test_bleu_sentence_score_equals_sacrebleu(options):
    ours, theirs = compat.BLEU(**options), sacrebleu.BLEU(**options)
    for hyp, refs in SEGMENTS:
        same_score(ours.sentence_score(hyp, refs), theirs.sentence_score(hyp, refs))
        assert ours.get_signature().format() == theirs.get_signature().format()
        same_score(ours.sentence_score(hyp, tuple(refs)), theirs.sentence_score(hyp, tuple(refs)))


@pytest.mark.parametrize("options", [{}, {"word_order": 2}, {"beta": 1, "lowercase": True},
                                     {"whitespace": True, "eps_smoothing": True}, {"char_order": 2}], ids=repr)
def test_chrf_sentence_score_equals_sacrebleu(options):
    ours, theirs = compat.CHRF(**options), sacrebleu.CHRF(**options)
    for hyp, refs in SEGMENTS:
        same_score(ours.sentence_score(hyp, refs), theirs.sentence_score(hyp, refs))
        assert ours.get_signature().format() == theirs.get_signature().format()


@pytest.mark.parametrize("options", [{}, {"normalized": True}, {"no_punct": True, "case_sensitive": True},
                                     {"asian_support": True, "normalized": True}], ids=repr)
def test_ter_sentence_score_equals_sacrebleu(options):
    ours, theirs = compat.TER(**options), sacrebleu.TER(**options)
    for hyp, refs in SEGMENTS:
        same_score(ours.sentence_score(hyp, refs), theirs.sentence_score(hyp, refs))
        assert ours.get_signature().format() == theirs.get_signature().format()


def test_sentence_functions_equal_sacrebleu_and_keep_options_apart():
    for hyp, refs in SEGMENTS:
        same_score(compat.sentence_bleu(hyp, refs), sacrebleu.sentence_bleu(hyp, refs))
        same_score(compat.sentence_chrf(hyp, refs), sacrebleu.sentence_chrf(hyp, refs))
        same_score(compat.sentence_ter(hyp, refs), sacrebleu.sentence_ter(hyp, refs))
        # the cached metrics are keyed by every option, with its type
        for options in ({"smooth_method": "add-k", "smooth_value": 1}, {"smooth_method": "add-k", "smooth_value": 1.0},
                        {"use_effective_order": False}, {"lowercase": True, "tokenize": "char"}):
            same_score(compat.sentence_bleu(hyp, refs, **options), sacrebleu.sentence_bleu(hyp, refs, **options))
        same_score(compat.sentence_chrf(hyp, refs, word_order=2), sacrebleu.sentence_chrf(hyp, refs, word_order=2))
        same_score(compat.sentence_ter(hyp, refs, normalized=True), sacrebleu.sentence_ter(hyp, refs, normalized=True))


def test_sentence_functions_refuse_bad_options_every_time():
    for _ in range(2):
        with pytest.raises(ValueError):
            compat.sentence_bleu("a", ["a"], tokenize="moses")
        with pytest.raises(ValueError):
            compat.sentence_bleu("a", ["a"], smooth_method="nope")


@pytest.mark.parametrize("hyp,refs,plain_refs", [
    (np.str_("a b"), ["a b"], ["a b"]),                # a str subclass: the general road makes it plain
    ("a b", np.array(["a b", "b"]), ["a b", "b"]),     # an array of references
    ("a b", ["a b", None], ["a b"]),                   # a missing reference (sacrebleu's None)
    ("a b", (r for r in ["a b", "b"]), ["a b", "b"]),  # a generator, read once
])
def test_other_argument_shapes_take_the_general_road(hyp, refs, plain_refs):
    ours = compat.BLEU(effective_order=True).sentence_score(hyp, refs)
    want = sacrebleu.BLEU(effective_order=True).sentence_score(str(hyp), plain_refs)
    assert ours.score == want.score


@pytest.mark.parametrize("hyp,refs,error", [(1, ["a"], TypeError), ("a", "a", TypeError), ("a", [], ValueError),
                                            ("a", [1], TypeError)])
def test_bad_arguments_raise_as_before(hyp, refs, error):
    for metric in (compat.BLEU(), compat.CHRF(), compat.TER()):
        with pytest.raises(error):
            metric.sentence_score(hyp, refs)


@pytest.mark.parametrize("metric", [BLEU(effective_order=True), BLEU(tokenize="intl", smooth_method="add-k"),
                                    CHRF(word_order=2), TER(normalized=True)], ids=repr)
def test_native_sentence_score_equals_the_batch_road(metric):
    for hyp, refs in SEGMENTS:
        one = metric.sentence_score(hyp, refs)
        assert one == metric.corpus_score([hyp], [refs]) and one.n == 1
        assert one == metric.sentence_score(hyp, tuple(refs))  # the general road


def test_bleu_of_counts_equals_the_vectorised_formula():
    rng = np.random.default_rng(7)
    for _ in range(300):
        total = sorted(rng.integers(0, 30, 4).tolist(), reverse=True)
        correct = [int(rng.integers(0, t + 1)) if rng.random() < 0.8 else 0 for t in total]
        sys_len, ref_len = total[0], int(rng.integers(0, 40))
        for method, value in (("exp", None), ("none", None), ("floor", None), ("add-k", None), ("add-k", 0.5)):
            for eff in (False, True):
                one = bleu_of_counts(correct, total, sys_len, ref_len, smooth_method=method, smooth_value=value,
                                     effective_order=eff)
                many = bleu_from_statistics(correct, total, sys_len, ref_len, smooth_method=method,
                                            smooth_value=value, effective_order=eff)
                assert one[0] == float(many[0][0]) and one[1] == many[1][0].tolist() and one[2] == float(many[2][0])
                assert one[3] == many[3][0].tolist() and one[4] == many[4][0].tolist()


def test_one_segment_kernels_equal_the_batch_kernels_and_refuse_bad_input():
    from qascore._kernels.bleu_tok13a import tokenize_13a_packed, tokenize_13a_segment
    from qascore._kernels.ngram import clipped_ngram_matches, segment_clipped_matches

    for hyp, refs in SEGMENTS:
        lines = [hyp, *refs]
        ids, lengths = tokenize_13a_segment(lines)
        batch_ids, offsets, _ = tokenize_13a_packed(lines, None, 1)
        assert np.frombuffer(ids, dtype=np.int32).tolist() == batch_ids.tolist()
        assert lengths == np.diff(offsets).tolist()
        want = clipped_ngram_matches(batch_ids, offsets, np.zeros(1, dtype=np.int64), batch_ids, offsets,
                                     np.arange(1, len(lines), dtype=np.int64),
                                     np.array([0, len(refs)], dtype=np.int64), 4, 1)
        assert segment_clipped_matches(ids, lengths, 4) == want[0].tolist()
    ids = np.array([0, 1, 0, 1], dtype=np.int32).tobytes()
    for bad_ids, bad_lengths, order in ((ids, [2, 1], 4), (ids, [4], 4), (ids, [2, 2], 0), (ids[:-1], [2, 2], 4),
                                        (np.array([0, -1], dtype=np.int32).tobytes(), [1, 1], 4), (ids, [5, -1], 4)):
        with pytest.raises(ValueError):
            segment_clipped_matches(bad_ids, bad_lengths, order)
    with pytest.raises(TypeError):
        tokenize_13a_segment(["a", None])
