"""The Porter stemmer exactly as NLTK's ``PorterStemmer()`` runs it (mode NLTK_EXTENSIONS).

rouge-score stems with ``nltk.stem.porter.PorterStemmer()``, so its numbers depend on NLTK's
reading of Porter (1980) plus NLTK's extensions. This module is our own implementation of those
semantics, written from the algorithm's description and checked against NLTK on every distinct
token of the shared data and on generated words (tests/test_text_porter.py). The differences from
the published algorithm that NLTK_EXTENSIONS makes, and which we therefore make too:

* a fixed table of irregular forms (``skies`` -> ``sky``, ``dying`` -> ``die``, ``news``, ...);
* words of one or two characters are returned unchanged;
* step 1a: a four-letter word ending in ``ies`` becomes ``...ie`` (``ties`` -> ``tie``);
* step 1b: ``ied`` -> ``ie`` for four-letter words, else ``ied`` -> ``i``;
* step 1c: ``y`` -> ``i`` only after a consonant that is not the first letter;
* step 2: ``alli`` -> ``al`` is tried first and the result goes through step 2 again; ``bli`` ->
  ``ble`` replaces ``abli`` -> ``able``; ``fulli`` -> ``ful``; ``logi`` -> ``log`` when the stem
  *including its final l* has a positive measure;
* the "ends consonant-vowel-consonant" test also accepts two-letter words vowel-consonant.

Domain: NLTK lowercases its input first, and so do we. Tokens reach the stemmer as lowercase
ASCII letters and digits; for those the output is identical to NLTK's. Digits count as
consonants, as in NLTK.
"""
from __future__ import annotations

from functools import lru_cache

from collections.abc import Callable, Sequence

_VOWELS = frozenset("aeiou")

# NLTK_EXTENSIONS' irregular forms: surface form -> stem.
_IRREGULAR = {
    form: stem
    for stem, forms in {
        "sky": ("sky", "skies"),
        "die": ("dying",),
        "lie": ("lying",),
        "tie": ("tying",),
        "news": ("news",),
        "inning": ("innings", "inning"),
        "outing": ("outings", "outing"),
        "canning": ("cannings", "canning"),
        "howe": ("howe",),
        "proceed": ("proceed",),
        "exceed": ("exceed",),
        "succeed": ("succeed",),
    }.items()
    for form in forms
}


def _shape(word: str) -> str:
    """One letter per character: 'c' consonant, 'v' vowel; 'y' is a vowel after a consonant."""
    shape = []
    previous_is_consonant = False
    for position, char in enumerate(word):
        if char in _VOWELS:
            consonant = False
        elif char == "y":
            consonant = position == 0 or not previous_is_consonant
        else:
            consonant = True
        shape.append("c" if consonant else "v")
        previous_is_consonant = consonant
    return "".join(shape)


def _measure(stem: str) -> int:
    """Porter's m: the number of vowel-run -> consonant-run transitions."""
    return _shape(stem).count("vc")


def _has_vowel(stem: str) -> bool:
    return "v" in _shape(stem)


def _ends_double_consonant(word: str) -> bool:
    return len(word) >= 2 and word[-1] == word[-2] and _shape(word)[-1] == "c"


def _ends_cvc(word: str) -> bool:
    shape = _shape(word)
    if len(word) >= 3:
        return shape.endswith("cvc") and word[-1] not in "wxy"
    return shape == "vc"  # NLTK extension for two-letter stems


def _m_positive(stem: str) -> bool:
    return _measure(stem) > 0


def _m_above_one(stem: str) -> bool:
    return _measure(stem) > 1


Condition = Callable[[str], bool] | None
Rule = tuple[str, str, Condition]


def _apply_first_matching(word: str, rules: Sequence[Rule]) -> str:
    """The first rule whose suffix ends ``word`` decides: rewrite if its condition holds on the
    stem, else leave the word as it is. Later rules are never tried once a suffix matched."""
    for suffix, replacement, condition in rules:
        if word.endswith(suffix):
            stem = word[: len(word) - len(suffix)]
            if condition is None or condition(stem):
                return stem + replacement
            return word
    return word


_STEP1A = (("sses", "ss", None), ("ies", "i", None), ("ss", "ss", None), ("s", "", None))

_STEP2 = (
    ("ational", "ate", _m_positive),
    ("tional", "tion", _m_positive),
    ("enci", "ence", _m_positive),
    ("anci", "ance", _m_positive),
    ("izer", "ize", _m_positive),
    ("bli", "ble", _m_positive),
    ("alli", "al", _m_positive),
    ("entli", "ent", _m_positive),
    ("eli", "e", _m_positive),
    ("ousli", "ous", _m_positive),
    ("ization", "ize", _m_positive),
    ("ation", "ate", _m_positive),
    ("ator", "ate", _m_positive),
    ("alism", "al", _m_positive),
    ("iveness", "ive", _m_positive),
    ("fulness", "ful", _m_positive),
    ("ousness", "ous", _m_positive),
    ("aliti", "al", _m_positive),
    ("iviti", "ive", _m_positive),
    ("biliti", "ble", _m_positive),
    ("fulli", "ful", _m_positive),
    # The l of 'logi' counts as part of the stem, so 'geologi' and 'theologi' both reduce.
    ("logi", "log", lambda stem: _m_positive(stem + "l")),
)

_STEP3 = (
    ("icate", "ic", _m_positive),
    ("ative", "", _m_positive),
    ("alize", "al", _m_positive),
    ("iciti", "ic", _m_positive),
    ("ical", "ic", _m_positive),
    ("ful", "", _m_positive),
    ("ness", "", _m_positive),
)

_STEP4 = (
    ("al", "", _m_above_one),
    ("ance", "", _m_above_one),
    ("ence", "", _m_above_one),
    ("er", "", _m_above_one),
    ("ic", "", _m_above_one),
    ("able", "", _m_above_one),
    ("ible", "", _m_above_one),
    ("ant", "", _m_above_one),
    ("ement", "", _m_above_one),
    ("ment", "", _m_above_one),
    ("ent", "", _m_above_one),
    ("ion", "", lambda stem: _m_above_one(stem) and stem[-1] in "st"),
    ("ou", "", _m_above_one),
    ("ism", "", _m_above_one),
    ("ate", "", _m_above_one),
    ("iti", "", _m_above_one),
    ("ous", "", _m_above_one),
    ("ive", "", _m_above_one),
    ("ize", "", _m_above_one),
)


def _step1a(word: str) -> str:
    if len(word) == 4 and word.endswith("ies"):
        return word[:-3] + "ie"
    return _apply_first_matching(word, _STEP1A)


def _step1b(word: str) -> str:
    if word.endswith("ied"):
        return word[:-3] + ("ie" if len(word) == 4 else "i")
    if word.endswith("eed"):
        stem = word[:-3]
        return stem + "ee" if _measure(stem) > 0 else word
    if word.endswith("ed"):
        stem = word[:-2]
    elif word.endswith("ing"):
        stem = word[:-3]
    else:
        return word
    if not _has_vowel(stem):
        return word
    # Tidy the stem left by removing -ed / -ing.
    for suffix, replacement in (("at", "ate"), ("bl", "ble"), ("iz", "ize")):
        if stem.endswith(suffix):
            return stem[: -len(suffix)] + replacement
    if _ends_double_consonant(stem):
        return stem if stem[-1] in "lsz" else stem[:-1]
    if _measure(stem) == 1 and _ends_cvc(stem):
        return stem + "e"
    return stem


def _step1c(word: str) -> str:
    if word.endswith("y") and len(word) > 2 and _shape(word[:-1])[-1] == "c":
        return word[:-1] + "i"
    return word


def _step2(word: str) -> str:
    if word.endswith("alli") and _m_positive(word[:-4]):
        return _step2(word[:-4] + "al")
    return _apply_first_matching(word, _STEP2)


def _step3(word: str) -> str:
    return _apply_first_matching(word, _STEP3)


def _step4(word: str) -> str:
    return _apply_first_matching(word, _STEP4)


def _step5a(word: str) -> str:
    if word.endswith("e"):
        stem = word[:-1]
        measure = _measure(stem)
        if measure > 1 or (measure == 1 and not _ends_cvc(stem)):
            return stem
    return word


def _step5b(word: str) -> str:
    if word.endswith("ll") and _m_above_one(word[:-1]):
        return word[:-1]
    return word


@lru_cache(maxsize=1 << 18)
def porter_stem(word: str) -> str:
    """Stem one word exactly as ``nltk.stem.porter.PorterStemmer().stem(word)`` does.

    Example:

        >>> porter_stem("running"), porter_stem("Ponies"), porter_stem("generously")
        ('run', 'poni', 'gener')

    :param word: one word (any case; NLTK's irregular forms are looked up before lowercasing).
    :returns: its stem, lowercased.
    """
    # As in NLTK, the irregular table and the length test look at the word before lowercasing.
    irregular = _IRREGULAR.get(word)
    if irregular is not None:
        return irregular
    stem = word.lower()
    if len(word) <= 2:
        return stem
    for step in (_step1a, _step1b, _step1c, _step2, _step3, _step4, _step5a, _step5b):
        stem = step(stem)
    return stem


class PorterStemmer:
    """Object form of :func:`porter_stem`, shaped like NLTK's (``.stem(word)``).

    Example:

        >>> PorterStemmer().stem("connections")
        'connect'
    """

    name = "porter-nltk"

    def stem(self, word: str) -> str:
        return porter_stem(word)
