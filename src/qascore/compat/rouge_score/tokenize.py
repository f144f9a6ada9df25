"""``rouge_score.tokenize``: ``tokenize(text, stemmer)`` and the regular expressions it is defined by.

Lowercase, every run of characters outside ``[a-z0-9]`` becomes a space, split on spaces, stem
tokens longer than 3 characters with ``stemmer.stem`` (when a stemmer is given), keep the tokens
that ``VALID_TOKEN_RE`` matches. Without a stemmer this is :class:`qascore.text.RougeTokenizer`.
"""
from __future__ import annotations

import re

from ...text import RougeTokenizer

__all__ = [
    "NON_ALPHANUM_PATTERN",
    "NON_ALPHANUM_RE",
    "SPACES_PATTERN",
    "SPACES_RE",
    "VALID_TOKEN_PATTERN",
    "VALID_TOKEN_RE",
    "tokenize",
]

# rouge-score's public constants (same patterns, same values)
NON_ALPHANUM_PATTERN = r"[^a-z0-9]+"
NON_ALPHANUM_RE = re.compile(NON_ALPHANUM_PATTERN)
SPACES_PATTERN = r"\s+"
SPACES_RE = re.compile(SPACES_PATTERN)
VALID_TOKEN_PATTERN = r"^[a-z0-9]+$"
VALID_TOKEN_RE = re.compile(VALID_TOKEN_PATTERN)

_UNSTEMMED = RougeTokenizer()


def _stem_text(stem: object) -> str:
    """A stemmer's output as text: bytes are UTF-8 (as rouge-score's six.ensure_str reads them)."""
    if isinstance(stem, bytes):
        return stem.decode("utf-8")
    if not isinstance(stem, str):
        raise TypeError(f"stemmer.stem() must return str, got {type(stem).__name__}")
    return stem


def tokenize(text: str, stemmer) -> list[str]:
    """Tokens of ``text`` as rouge-score makes them; ``stemmer``: None or an object with ``stem(word)``.

    Example:

        >>> from qascore.compat.rouge_score import tokenize
        >>> tokenize.tokenize("The cats were running!", None)
        ['the', 'cats', 'were', 'running']
        >>> from qascore.text import PorterStemmer  # as nltk's PorterStemmer()
        >>> tokenize.tokenize("The cats were running!", PorterStemmer())
        ['the', 'cat', 'were', 'run']

    :param text: the text.
    :param stemmer: None, or an object whose ``stem(word)`` returns a str (or UTF-8 bytes).
    :returns: the token list.
    :raises TypeError: for a text that is not a str, or a stem that is neither str nor bytes.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be str, got {type(text).__name__}")
    if not stemmer:
        return _UNSTEMMED.tokenize(text)
    words = NON_ALPHANUM_RE.sub(" ", text.lower()).split()
    stems = [_stem_text(stemmer.stem(word)) if len(word) > 3 else word for word in words]
    # a stemmer may return anything: only alphanumeric tokens survive (as in rouge-score)
    return [token for token in stems if VALID_TOKEN_RE.match(token)]
