"""The reference tokenisers: parity with rouge-score's tokeniser, the Unicode word rule, errors."""
from __future__ import annotations

import unicodedata
from functools import lru_cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nltk.stem.porter import PorterStemmer as NltkPorterStemmer
from rouge_score import tokenize as rouge_tokenize
from rouge_score.tokenizers import DefaultTokenizer

from qascore.text import (
    CharTokenizer,
    RougeTokenizer,
    UnicodeWordTokenizer,
    Vocabulary,
    WhitespaceTokenizer,
    get_tokenizer,
)
from test_text_corpus import all_texts
import re as _re

from qascore.text import PorterStemmer, Vocabulary as _Vocabulary, WordTermTokenizer, porter_stem
from qascore.text.stopwords import STOPWORDS


class _MemoisedNltkStemmer:
    """NLTK's stemmer with a cache, so rouge-score's own tokenize() runs over the corpus in seconds."""

    def __init__(self):
        self._stem = lru_cache(maxsize=None)(NltkPorterStemmer().stem)

    def stem(self, word):
        return self._stem(word)


@pytest.mark.parametrize("use_stemmer", [False, True])
def test_rouge_tokenizer_matches_rouge_score_on_the_shared_data(shared_data, use_stemmer):
    stemmer = _MemoisedNltkStemmer() if use_stemmer else None
    ours = RougeTokenizer(use_stemmer=use_stemmer)
    texts = all_texts(shared_data)
    mismatches = [t for t in texts if ours.tokenize(t) != rouge_tokenize.tokenize(t, stemmer)]
    assert mismatches == []


_ANY_TEXT = st.text(alphabet=st.characters(codec=None), max_size=80) | st.text(
    alphabet="aAbBzZ09 İ\u212a\u0307-_.é\n\t\u3000Σσς", max_size=40
)


@settings(max_examples=600, deadline=None)
@given(_ANY_TEXT, st.booleans())
def test_rouge_tokenizer_matches_rouge_score_on_any_unicode(text, use_stemmer):
    assert RougeTokenizer(use_stemmer).tokenize(text) == DefaultTokenizer(use_stemmer).tokenize(text)


@pytest.mark.parametrize(
    "text, tokens",
    [
        ("", []),
        ("   \n\t", []),
        ("İstanbul", ["i", "stanbul"]),  # 'İ'.lower() is 'i' + U+0307, and U+0307 separates
        ("\u212aelvin", ["kelvin"]),  # the Kelvin sign lowercases to ASCII 'k'
        ("café 3.14 ÀB", ["caf", "3", "14", "b"]),
        ("中文 Русский ไทย", []),
        ("don't stop-me", ["don", "t", "stop", "me"]),
    ],
)
def test_rouge_tokenizer_edge_cases(text, tokens):
    assert RougeTokenizer().tokenize(text) == tokens == rouge_tokenize.tokenize(text, None)


def test_rouge_tokenizer_stems_only_tokens_longer_than_three():
    assert RougeTokenizer(use_stemmer=True).tokenize("Its cats was running") == ["its", "cat", "was", "run"]


# A plain restatement of the Unicode word rule, written apart from the tokeniser it checks: the
# scripts written without spaces are recognised by character name, not by code point range.
_CONTINUOUS_SCRIPTS = ("CJK ", "HIRAGANA ", "KATAKANA", "HALFWIDTH KATAKANA", "THAI ", "LAO ", "KHMER ", "MYANMAR ")


def _is_continuous_letter(char):
    return unicodedata.category(char)[0] == "L" and unicodedata.name(char, "").startswith(_CONTINUOUS_SCRIPTS)


def _reference_unicode_words(text):
    clusters = []  # a base character with the combining marks that follow it
    for char in text.casefold():
        if unicodedata.category(char)[0] == "M":
            if clusters and clusters[-1] != " ":
                clusters[-1] += char
        elif unicodedata.category(char)[0] in "LN":
            clusters.append(char)
        else:
            clusters.append(" ")
    return "".join(f" {c} " if _is_continuous_letter(c[0]) else c for c in clusters).split()


@pytest.mark.parametrize(
    "text, tokens",
    [
        ("", []),
        ("Привет, МИР!", ["привет", "мир"]),
        ("我们是学生。", ["我", "们", "是", "学", "生"]),
        ("ภาษาไทย", ["ภ", "า", "ษ", "า", "ไ", "ท", "ย"]),
        ("नमस्ते दुनिया", ["नमस्ते", "दुनिया"]),  # vowel signs (marks) stay inside the word
        ("snake_case x2 Straße", ["snake", "case", "x2", "strasse"]),
        ("日本語abc漢字", ["日", "本", "語", "abc", "漢", "字"]),
        ("\u0301abc", ["abc"]),  # a mark with nothing before it is dropped
    ],
)
def test_unicode_tokenizer_examples(text, tokens):
    assert UnicodeWordTokenizer().tokenize(text) == tokens


@settings(max_examples=600, deadline=None)
@given(_ANY_TEXT | st.text(alphabet="中文ภาษาไทยनमस्ते่́ a1_", max_size=30))
def test_unicode_tokenizer_matches_the_plain_rule(text):
    assert UnicodeWordTokenizer().tokenize(text) == _reference_unicode_words(text)


def test_every_letter_of_a_continuous_script_is_a_token_of_its_own():
    # every code point this Python knows, e.g. Kana extended-B's U+1AFF0 (found by hypothesis: '0\U0001AFF0')
    import sys

    for code in range(sys.maxunicode + 1):
        if _is_continuous_letter(chr(code)):
            assert UnicodeWordTokenizer().tokenize("0" + chr(code)) == ["0", chr(code).casefold()], hex(code)


def test_unicode_tokenizer_stems_ascii_words_only():
    assert UnicodeWordTokenizer(use_stemmer=True).tokenize("Running летающие cats") == ["run", "летающие", "cat"]


def test_whitespace_and_char_tokenizers():
    assert WhitespaceTokenizer().tokenize(" a  b\u3000c\n") == ["a", "b", "c"]
    assert CharTokenizer().tokenize("中 文 a\u3000") == ["中", "文", "a"]


def test_signatures_name_rule_and_stemmer():
    assert RougeTokenizer().signature() == "rouge"
    assert RougeTokenizer(use_stemmer=True).signature() == "rouge+porter"
    assert UnicodeWordTokenizer(use_stemmer=True).signature() == "unicode+porter"
    assert CharTokenizer().signature() == "char" and WhitespaceTokenizer().signature() == "whitespace"


def test_get_tokenizer_builds_by_name_with_options():
    tokenizer = get_tokenizer("rouge", use_stemmer=True)
    assert isinstance(tokenizer, RougeTokenizer) and tokenizer.use_stemmer and tokenizer.name == "rouge"
    assert get_tokenizer("unicode").name == "unicode"
    with pytest.raises(ValueError, match="unknown tokenizer 'nope'"):
        get_tokenizer("nope")


@pytest.mark.parametrize("tokenizer", [RougeTokenizer(), UnicodeWordTokenizer(), WhitespaceTokenizer(), CharTokenizer()])
def test_non_strings_are_named_by_index(tokenizer):
    with pytest.raises(TypeError, match=r"texts\[1\] must be str, got NoneType"):
        tokenizer.tokenize_batch(["ok", None])
    with pytest.raises(TypeError, match="must be str, got int"):
        tokenizer.tokenize(3)
    with pytest.raises(TypeError, match=r"texts\[0\] must be str, got bytes"):
        tokenizer.encode_batch([b"x"], Vocabulary())


# ---------------------------------------------------------------- WordTermTokenizer


def _reference_terms(text, stem, stopwords):
    """The rule written plainly: lowercase, \\w+ runs, stopwords out, then stem."""
    words = _re.findall(r"\w+", text.lower())
    return [stem(w) if stem else w for w in words if w not in stopwords]


_word_texts = st.lists(st.sampled_from(["The", "cats", "running", "a", "über", "x_y", "42", "\x00", "İ", "of",
                                          "Because", " ", ".", "\n", "東京"]), max_size=12).map(" ".join)


@settings(max_examples=200, deadline=None)
@given(st.lists(_word_texts, max_size=6), st.booleans(), st.booleans())
def test_word_terms_match_the_plain_rule_and_batch_equals_single(texts, stem, stop):
    stemmer = porter_stem if stem else None
    stopwords = STOPWORDS if stop else frozenset()
    tok = WordTermTokenizer(stem=stemmer, stopwords=stopwords)
    assert [tok.tokenize(t) for t in texts] == [_reference_terms(t, stemmer, stopwords) for t in texts]
    vocab = _Vocabulary()
    packed = tok.encode_batch(texts, vocab)
    rows = [[vocab.token(int(i)) for i in packed.ids[a:b]] for a, b in zip(packed.offsets[:-1], packed.offsets[1:])]
    assert rows == tok.tokenize_batch(texts)


def test_word_terms_signature_and_registry():
    from qascore.text import get_tokenizer

    assert get_tokenizer("words").signature() == "words-lower"
    assert WordTermTokenizer(stem=porter_stem, stopwords=STOPWORDS).signature() == "words-lower-nostop-stem"
    assert WordTermTokenizer(stopwords=STOPWORDS).tokenize("The cat of the Hat") == ["cat", "hat"]
    assert PorterStemmer is not None
