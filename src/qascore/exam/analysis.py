"""Text analysis for the EXAM solvers: sentence splitting and the lexical analyser (text -> terms).

Terms are lowercased word runs (``\\w+``) with English stopwords removed, optionally stemmed. The
analyser caches each distinct word's term, so a large collection costs one regex pass per text and
one dictionary lookup per token.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np

from ..text import PackedTokens, Vocabulary
from ..text.stopwords import STOPWORDS

_SENTENCE_BREAK = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])|\n+")
_WORD = re.compile(r"\w+")
_WORD_OR_BREAK = re.compile(r"\w+|\x00")  # NUL separates texts packed in one pass
_BREAK, _DROPPED = -2, -1



def split_sentences(text: str) -> list[str]:
    """Split at ., ! or ? followed by space and a capital/digit, and at line breaks; drop empty pieces."""
    return [s.strip() for s in _SENTENCE_BREAK.split(text) if s and s.strip()]


class LexicalAnalyzer:
    """lowercase -> ``\\w+`` words -> drop stopwords -> optional stem; with a per-word cache."""

    def __init__(self, stem: Callable[[str], str] | None = None, stopwords=STOPWORDS):
        self._stem = stem
        self._stopwords = stopwords
        self._cache: dict[str, str | None] = {}
        self.name = "words-lower-nostop" + ("-stem" if stem else "")

    def terms(self, text: str) -> list[str]:
        out = []
        for word in _WORD.findall(text.lower()):
            term = self._term(word)
            if term is not None:
                out.append(term)
        return out

    def _term(self, word: str) -> str | None:
        term = self._cache.get(word, "")
        if term == "":
            term = None if word in self._stopwords else (self._stem(word) if self._stem else word)
            self._cache[word] = term
        return term

    def pack(self, texts: Sequence[str], vocab: Vocabulary) -> PackedTokens:
        """Terms of many texts as packed ids (row i = text i), in one regex pass over all of them.

        Same terms as :meth:`terms`; each distinct word is analysed once (cached across calls).
        """
        joined = "\x00".join(t.replace("\x00", " ") for t in texts).lower()
        words = _WORD_OR_BREAK.findall(joined)
        # Word -> id map local to the call (so concurrent calls never share it); terms themselves
        # come from the analyser's per-word cache, and all new terms are interned in one pack.
        distinct = list(set(words).difference(("\x00",)))
        terms = [self._term(w) for w in distinct]
        kept = [(w, t) for w, t in zip(distinct, terms) if t is not None]
        cache = dict.fromkeys(distinct, _DROPPED)
        cache["\x00"] = _BREAK
        if kept:
            cache.update(zip((w for w, _ in kept), vocab.pack([[t for _, t in kept]]).ids.tolist()))
        ids = np.array(list(map(cache.__getitem__, words)), dtype=np.int64)
        row = np.cumsum(ids == _BREAK)
        keep = ids >= 0
        counts = np.bincount(row[keep], minlength=len(texts)) if len(texts) else np.zeros(0, dtype=np.int64)
        offsets = np.zeros(len(texts) + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        return PackedTokens(ids[keep].astype(np.int32), offsets)
