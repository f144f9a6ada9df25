"""EXAM's terms: the lexical analyser of the solvers and the ROUGE-1 baseline (text -> terms).

Terms are lowercased word runs (``\\w+``) with English stopwords removed, optionally stemmed. The
analyser caches each distinct word's term, so a large collection costs one regex pass per text and
one dictionary lookup per token.
"""
from __future__ import annotations

from collections.abc import Callable

from ..text import WordTermTokenizer
from ..text.stopwords import STOPWORDS

__all__ = ["LexicalAnalyzer"]


class LexicalAnalyzer(WordTermTokenizer):
    """EXAM's terms: the text layer's word rule (lowercase -> ``\\w+`` -> drop stopwords -> optional
    stem) with EXAM's stopword list. The analysers' verbs: :meth:`terms` (one text's terms, the
    tokeniser's ``tokenize``) and ``encode_batch`` (many texts as packed ids, row i = text i, in
    one regex pass over all of them)."""

    def __init__(self, stem: Callable[[str], str] | None = None, stopwords=STOPWORDS):
        super().__init__(stem=stem, stopwords=stopwords)
        self.name = "words-lower-nostop" + ("-stem" if stem else "")

    def terms(self, text: str) -> list[str]:
        return self.tokenize(text)
