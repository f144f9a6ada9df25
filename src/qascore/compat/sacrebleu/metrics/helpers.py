"""sacrebleu's n-gram helpers, for code that imports them (the metrics count n-grams in kernels)."""
from __future__ import annotations

from collections import Counter


def extract_all_word_ngrams(line: str, min_order: int, max_order: int) -> tuple[Counter, int]:
    """Counts of the word n-grams (tuples) of orders min_order..max_order, and the number of words."""
    tokens = line.split()
    grams = Counter(tuple(tokens[i:i + n]) for n in range(min_order, max_order + 1)
                    for i in range(len(tokens) - n + 1))
    return grams, len(tokens)


def extract_word_ngrams(tokens: list[str], n: int) -> Counter:
    """Counts of the word n-grams of order ``n``, each joined by a space.

    Example:

        >>> from qascore.compat.sacrebleu import extract_word_ngrams
        >>> extract_word_ngrams("the cat sat".split(), 2)
        Counter({'the cat': 1, 'cat sat': 1})

    :param tokens: the words.
    :param n: the n-gram order.
    :returns: a :class:`~collections.Counter` of n-grams.
    """
    return Counter(" ".join(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


def extract_char_ngrams(line: str, n: int, include_whitespace: bool = False) -> Counter:
    """Counts of the character n-grams of order ``n`` (whitespace removed unless included).

    Example:

        >>> from qascore.compat.sacrebleu import extract_char_ngrams
        >>> sorted(extract_char_ngrams("a cat", 2).items())
        [('ac', 1), ('at', 1), ('ca', 1)]
        >>> sorted(extract_char_ngrams("a cat", 2, include_whitespace=True))
        [' c', 'a ', 'at', 'ca']

    :param line: the text.
    :param n: the n-gram order.
    :param include_whitespace: keep whitespace characters.
    :returns: a :class:`~collections.Counter` of n-grams.
    """
    if not include_whitespace:
        line = "".join(line.split())
    return Counter(line[i:i + n] for i in range(len(line) - n + 1))


def extract_all_char_ngrams(line: str, max_order: int, include_whitespace: bool = False) -> list[Counter]:
    """:func:`extract_char_ngrams` for every order 1..max_order."""
    return [extract_char_ngrams(line, n, include_whitespace) for n in range(1, max_order + 1)]
