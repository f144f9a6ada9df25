"""Our Porter stemmer against NLTK's PorterStemmer() (NLTK_EXTENSIONS), the one rouge-score uses."""
from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nltk.stem.porter import PorterStemmer as NltkPorterStemmer

from qascore._kernels.rouge_raw import porter_stem_ascii
from qascore.text import PorterStemmer, porter_stem
from test_text_corpus import all_texts

NLTK = NltkPorterStemmer()

# Fragments that reach every rule of every step when glued together.
_SUFFIXES = (
    "s sses ies ss ed eed ied ing at bl iz y ational tional enci anci izer bli abli alli entli eli "
    "ousli ization ation ator alism iveness fulness ousness aliti iviti biliti fulli logi icate ative "
    "alize iciti ical ful ness al ance ence er ic able ible ant ement ment ent ion sion tion ou ism "
    "ate iti ous ive ize e ll"
).split()
_FRAGMENTS = st.sampled_from(list("abcdefghijklmnopqrstuvwxyz0123456789") + ["y", "yy"] + _SUFFIXES)
_WORDS = st.lists(_FRAGMENTS, min_size=1, max_size=6).map("".join)


def test_every_token_of_the_shared_data_stems_as_nltk(shared_data):
    words = set()
    for text in all_texts(shared_data):
        words.update(re.sub(r"[^a-z0-9]+", " ", text.lower()).split())
    assert len(words) > 40000
    mismatches = [(w, porter_stem(w), NLTK.stem(w)) for w in words if porter_stem(w) != NLTK.stem(w)]
    assert mismatches == []
    # the compiled stemmer of the ROUGE kernel (kernels/include/qs_porter.h) gives the same stems
    compiled = [(w, porter_stem_ascii(w), NLTK.stem(w)) for w in words if porter_stem_ascii(w) != NLTK.stem(w)]
    assert compiled == []


@settings(max_examples=800, deadline=None)
@given(_WORDS)
def test_generated_words_stem_as_nltk(word):
    assert porter_stem(word) == porter_stem_ascii(word) == NLTK.stem(word)


@settings(max_examples=1500, deadline=None)
@given(st.text(alphabet="aeiouybcdlmnrstwxz0123456789", max_size=14))
def test_compiled_stemmer_on_short_words(word):
    # every length from 0, the letters the measure and the cvc test turn on
    assert porter_stem_ascii(word) == NLTK.stem(word)


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", max_size=12))
def test_mixed_case_ascii_stems_as_nltk(word):
    # NLTK consults its irregular table before lowercasing; so must we.
    assert porter_stem(word) == NLTK.stem(word)


@pytest.mark.parametrize(
    "word, stem",
    [
        ("caresses", "caress"), ("ponies", "poni"), ("ties", "tie"), ("cats", "cat"),
        ("feed", "feed"), ("agreed", "agre"), ("plastered", "plaster"), ("motoring", "motor"),
        ("sing", "sing"), ("conflated", "conflat"), ("troubled", "troubl"), ("sized", "size"),
        ("hopping", "hop"), ("falling", "fall"), ("hissing", "hiss"), ("filing", "file"),
        ("happy", "happi"), ("sky", "sky"), ("skies", "sky"), ("dying", "die"), ("news", "news"),
        ("relational", "relat"), ("conditional", "condit"), ("generalization", "gener"),
        ("archaeology", "archaeolog"), ("geology", "geolog"), ("electrical", "electr"),
        ("controlling", "control"), ("a", "a"), ("is", "is"), ("", ""),
    ],
)
def test_textbook_examples(word, stem):
    assert porter_stem(word) == porter_stem_ascii(word) == stem == NLTK.stem(word)


def test_object_form():
    assert PorterStemmer().stem("running") == "run"
