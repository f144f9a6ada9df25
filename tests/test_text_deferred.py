"""Vocabularies whose ids the compiled table defines (strings made on demand), and the lean
one-pair route: the same ids and strings as plain Python packing, whatever the order of use."""
from __future__ import annotations

import pickle

from hypothesis import given, settings
from hypothesis import strategies as st

from qascore.compat import rouge_score as compat
from qascore.text import RougeTokenizer, Vocabulary, WhitespaceTokenizer

WORDS = st.sampled_from(["the", "cat", "Cats", "running", "ran", "über", "x1", "ÉTÉ", "a-b", "..."])
TEXTS = st.lists(st.lists(WORDS, max_size=8).map(" ".join), max_size=6)


def _python_pack(vocab, tokenizer, texts):
    """The reference: the tokeniser's readable definition interned by plain Python."""
    return vocab.pack(tokenizer.tokenize_batch(texts))


@settings(max_examples=60, deadline=None)
@given(TEXTS, TEXTS, st.sampled_from(["plain", "stem", "whitespace"]), st.integers(0, 3))
def test_deferred_vocabulary_matches_python_packing_in_any_order(first, second, other, touch):
    """Encode plain rouge tokens into a fresh vocabulary (deferred ids): the ids of plain Python
    packing. Optionally read it, then encode with another tokeniser: the same tokens, one id per
    string (a vocabulary shared by tokenisers may hold extra types, numbered in arrival order, as
    documented; the stemmed map interns the stems of every raw type the table has seen)."""
    plain = RougeTokenizer()
    other_tok = {"plain": RougeTokenizer(), "stem": RougeTokenizer(use_stemmer=True),
                 "whitespace": WhitespaceTokenizer()}[other]
    vocab, expected_vocab = Vocabulary(), Vocabulary()
    got1 = plain.encode_batch(first, vocab, n_jobs=1)
    want1 = _python_pack(expected_vocab, plain, first)
    assert got1.ids.tolist() == want1.ids.tolist() and got1.offsets.tolist() == want1.offsets.tolist()
    assert len(vocab) == len(expected_vocab)
    first_types = list(expected_vocab._tokens)
    if touch == 1 and len(vocab):
        assert vocab.token(len(vocab) - 1) == expected_vocab.token(len(expected_vocab) - 1)
    elif touch == 2:
        vocab = pickle.loads(pickle.dumps(vocab))  # a plain vocabulary again, strings kept
    elif touch == 3:
        assert vocab.intern(["zzz-new"]) == expected_vocab.intern(["zzz-new"])
    got2 = other_tok.encode_batch(second, vocab, n_jobs=1)
    assert got2.offsets.tolist() == _python_pack(Vocabulary(), other_tok, second).offsets.tolist()
    assert [vocab.token(i) for i in got2.ids] == [t for row in other_tok.tokenize_batch(second) for t in row]
    tokens = vocab._tokens
    assert len(tokens) == len(vocab) == len(set(tokens))
    assert tokens[: len(first_types)] == first_types
    assert [vocab.id_of(t) for t in tokens] == list(range(len(tokens)))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(TEXTS.map(" ".join), TEXTS.map(" ".join)), min_size=1, max_size=12))
def test_compat_score_lean_route_survives_vocabulary_resets(monkeypatch_pairs):
    """Tiny limits force the scorer to drop its vocabulary often; scores stay those of a fresh
    scorer for each pair (checked against rouge-score in test_rouge_parity; here, against the
    batch path, which shares no state with score())."""
    saved = compat.MAX_VOCABULARY, compat.VOCABULARY_CHECK_PERIOD
    compat.MAX_VOCABULARY, compat.VOCABULARY_CHECK_PERIOD = 3, 2
    try:
        scorer = compat.RougeScorer(["rouge1", "rouge2", "rougeL"])
        got = [scorer.score(t, p) for t, p in monkeypatch_pairs]
    finally:
        compat.MAX_VOCABULARY, compat.VOCABULARY_CHECK_PERIOD = saved
    targets = [t for t, _ in monkeypatch_pairs]
    predictions = [p for _, p in monkeypatch_pairs]
    assert got == compat.RougeScorer(["rouge1", "rouge2", "rougeL"]).score_batch(targets, predictions)
