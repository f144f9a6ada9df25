"""sacrebleu-identical tokenisers: compared with sacrebleu's own on arbitrary Unicode and real text."""
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qascore.text import Vocabulary, get_tokenizer
from qascore.text.sacrebleu_tokenizers import (
    RULE_TOKENIZERS,
    get_sacrebleu_tokenizer,
    is_sacrebleu_chinese_char,
    preprocess_segment,
)

sacre_bleu = pytest.importorskip("sacrebleu.metrics.bleu")
from sacrebleu.tokenizers.tokenizer_zh import TokenizerZh as SacreZh  # noqa: E402


def sacre_tokenizer(name):
    return sacre_bleu._get_tokenizer(name)()


# Characters that steer the rules: ASCII punctuation, digits, whitespace of every kind, CJK,
# full-width forms, the 13a escapes, plus any code point at all.
_SPECIAL = list(" \t\n\r\x0b\x0c\x1c\x85\xa0\u2000\u2028\u3000.,-&;<>\"'0123456789aZ") + [
    "&quot;", "&amp;", "&lt;", "&gt;", "<skipped>", "-\n", "中", "文", "。", "，", "\u2a6d", "\u2001",
    "\u2f81", "\u2fa1", "\u2f80", "\U00020000", "\uff01", "€", "½", "٣",
]
texts = st.lists(st.one_of(st.sampled_from(_SPECIAL), st.characters()), max_size=40).map("".join)


@pytest.mark.parametrize("name", RULE_TOKENIZERS)  # the others: test_bleu_tokenizers_cjk_spm.py
@settings(max_examples=150, deadline=None)
@given(line=texts)
def test_tokenizer_matches_sacrebleu_on_arbitrary_unicode(name, line):
    assert get_sacrebleu_tokenizer(name)(line) == sacre_tokenizer(name)(line)


@pytest.mark.parametrize("name", RULE_TOKENIZERS)
@settings(max_examples=100, deadline=None)
@given(lines=st.lists(texts, max_size=6))
def test_the_registry_gives_sacrebleus_tokens_on_every_road(name, lines):
    """``get_tokenizer(name)`` (the one registry) is the tokeniser BLEU uses; its token list, its
    batch and its packed ids (the compiled ``char`` and ``none``) are the split of sacrebleu's line."""
    ours, theirs = get_tokenizer(name), sacre_tokenizer(name)
    assert type(ours) is type(get_sacrebleu_tokenizer(name)) and ours.signature() == theirs.signature()
    want = [theirs(x).split() for x in lines]
    assert [ours.tokenize(x) for x in lines] == ours.tokenize_batch(lines) == want
    packed, expected = ours.encode_batch(lines, Vocabulary()), Vocabulary().pack(want)
    assert packed.ids.tolist() == expected.ids.tolist() and packed.offsets.tolist() == expected.offsets.tolist()


def test_zh_range_table_matches_sacrebleu_below_u30000():
    check = SacreZh._is_chinese_char
    mismatches = [cp for cp in range(0x30000) if is_sacrebleu_chinese_char(chr(cp)) != check(chr(cp))]
    assert mismatches == []


def test_preprocess_strips_trailing_whitespace_and_lowercases():
    tok = get_sacrebleu_tokenizer("13a")
    assert preprocess_segment("Hello World.  \n", tok) == ["Hello", "World", "."]
    assert preprocess_segment("Hello World", tok, lowercase=True) == ["hello", "world"]


def test_unknown_tokenizer_is_named():
    with pytest.raises(ValueError, match="unknown sacrebleu tokenizer 'moses'"):
        get_sacrebleu_tokenizer("moses")


@pytest.mark.parametrize("name", RULE_TOKENIZERS)
def test_tokenizers_match_on_real_text(shared_data, name):
    lines = []
    with open(shared_data / "mrc/msmarco/dev_first_sentence_as_candidates.json", encoding="utf-8") as f:
        for i, line in enumerate(f):
            if i >= 2000:
                break
            lines.extend(json.loads(line)["answers"])
    with open(shared_data / "mrc/dureader2018_demo/ref.json", encoding="utf-8") as f:
        for line in f:
            lines.extend(json.loads(line)["answers"])
    ours, theirs = get_sacrebleu_tokenizer(name), sacre_tokenizer(name)
    assert [ours(x) for x in lines] == [theirs(x) for x in lines]


def _same_token_structure(lines):
    from qascore._kernels.bleu_tok13a import tokenize_13a_packed

    ids, offsets, n_types = tokenize_13a_packed(list(lines))
    tok = get_sacrebleu_tokenizer("13a")
    seen = {}
    for i, line in enumerate(lines):
        want = preprocess_segment(line, tok)
        got = ids[offsets[i]:offsets[i + 1]].tolist()
        assert len(got) == len(want), (line, want, got)
        for token, token_id in zip(want, got):
            assert seen.setdefault(token, token_id) == token_id, (line, token)
    assert n_types == len(seen) == len(set(seen.values()))


@settings(max_examples=120, deadline=None)
@given(lines=st.lists(texts, min_size=1, max_size=6))
def test_compiled_13a_equals_python_13a(lines):
    _same_token_structure(lines)


def test_compiled_13a_equals_python_13a_on_real_text(shared_data):
    lines = []
    with open(shared_data / "mrc/msmarco/dev_as_references.json", encoding="utf-8") as f:
        for line in f:
            lines.extend(json.loads(line)["answers"])
    _same_token_structure(lines)


def test_compiled_13a_rejects_non_strings_and_groups_keep_tokens():
    import numpy as np

    from qascore._kernels.bleu_tok13a import tokenize_13a_packed

    with pytest.raises(TypeError, match="Expected str"):
        tokenize_13a_packed(["a", 3])
    lines = ["x y, z.", "y x", "z", "1,000.5-2"] * 300
    whole = tokenize_13a_packed(lines)
    grouped = tokenize_13a_packed(lines, np.arange(0, len(lines), 2, dtype=np.int64), 2)
    assert whole[1].tolist() == grouped[1].tolist()  # same tokens per line; ids restart per group
    with pytest.raises(ValueError, match="begin at line 0"):
        tokenize_13a_packed(lines, np.array([1], dtype=np.int64))
