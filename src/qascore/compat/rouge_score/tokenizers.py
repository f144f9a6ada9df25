"""``rouge_score.tokenizers``: the ``Tokenizer`` base class and ``DefaultTokenizer``.

``DefaultTokenizer`` is :class:`qascore.text.RougeTokenizer` under rouge-score's name: a
``RougeScorer`` given one keeps its compiled path (a subclass, or any other object with
``tokenize(text)``, is called token list by token list: slower, the same numbers).
"""
from __future__ import annotations

import abc

from ...text import PorterStemmer, RougeTokenizer

__all__ = ["DefaultTokenizer", "Tokenizer"]


class Tokenizer(abc.ABC):
    """What ``RougeScorer(tokenizer=...)`` calls: subclasses implement ``tokenize(text) -> list[str]``."""

    @abc.abstractmethod
    def tokenize(self, text):
        raise NotImplementedError("Tokenizer must override tokenize() method")


class DefaultTokenizer(Tokenizer):
    """rouge-score's tokeniser (see :mod:`.tokenize`), Porter-stemming tokens of more than 3
    characters when ``use_stemmer`` is true.

    Example:

        >>> from qascore.compat.rouge_score import tokenizers
        >>> tokenizers.DefaultTokenizer(use_stemmer=True).tokenize("The cats were running!")
        ['the', 'cat', 'were', 'run']

    :param use_stemmer: Porter-stem tokens longer than 3 characters.
    :raises TypeError: from ``tokenize`` for a text that is not a str.
    """

    def __init__(self, use_stemmer=False):
        self._rouge = RougeTokenizer(bool(use_stemmer))
        # rouge-score keeps its stemmer here; subclasses may pass it to tokenize.tokenize
        self._stemmer = PorterStemmer() if use_stemmer else None

    @property
    def rouge_tokenizer(self) -> RougeTokenizer:
        """The compiled tokeniser doing the work (what RougeScorer uses in its place)."""
        return self._rouge

    def tokenize(self, text):
        return self._rouge.tokenize(text)

    def __repr__(self) -> str:
        return f"DefaultTokenizer(use_stemmer={self._rouge.use_stemmer})"
