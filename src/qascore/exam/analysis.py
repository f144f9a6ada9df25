"""Text analysis for the EXAM solvers: sentence splitting and the lexical analyser (text -> terms).

Terms are lowercased word runs (``\\w+``) with English stopwords removed, optionally stemmed. The
analyser caches each distinct word's term, so a large collection costs one regex pass per text and
one dictionary lookup per token.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

from ..text import PackedTokens, Vocabulary, WordTermTokenizer
from ..text.sentences import split_sentences
from ..text.stopwords import STOPWORDS

__all__ = ["LexicalAnalyzer", "split_sentences"]


class LexicalAnalyzer(WordTermTokenizer):
    """EXAM's terms: the text layer's word rule (lowercase -> ``\\w+`` -> drop stopwords -> optional
    stem) with EXAM's stopword list; :meth:`terms` and :meth:`pack` are the tokeniser's
    ``tokenize`` and ``encode_batch``."""

    def __init__(self, stem: Callable[[str], str] | None = None, stopwords=STOPWORDS):
        super().__init__(stem=stem, stopwords=stopwords)
        self.name = "words-lower-nostop" + ("-stem" if stem else "")

    def terms(self, text: str) -> list[str]:
        return self.tokenize(text)

    def pack(self, texts: Sequence[str], vocab: Vocabulary) -> PackedTokens:
        """Terms of many texts as packed ids (row i = text i), in one regex pass over all of them."""
        return self.encode_batch(texts, vocab)
