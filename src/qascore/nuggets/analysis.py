"""Turning nugget descriptions and responses into terms, and the idf table that weights them.

Terms are lower-cased word tokens (runs of letters and digits), optionally without stopwords and
optionally Porter-stemmed (the exact stemmer of :mod:`qascore.text`).
"""
from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Mapping

from ..text import porter_stem

_WORD = re.compile(r"[^\W_]+")

# The SMART-derived short list Pourpre-style matchers drop (function words only).
STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further had
    has have having he her here hers herself him himself his how i if in into is it its itself just
    me more most my myself no nor not now of off on once only or other our ours ourselves out over
    own same she should so some such than that the their theirs them themselves then there these
    they this those through to too under until up very was we were what when where which while who
    whom why will with would you your yours yourself yourselves""".split()
)


@dataclass(frozen=True)
class Analyzer:
    """Text -> terms. ``stem`` uses the exact Porter stemmer; ``stopwords`` drops :data:`STOPWORDS`."""

    stem: bool = False
    stopwords: bool = False

    def terms(self, text: str) -> tuple[str, ...]:
        return _terms(text, self.stem, self.stopwords)

    def terms_batch(self, texts: Iterable[str]) -> list[tuple[str, ...]]:
        return [_terms(t, self.stem, self.stopwords) for t in texts]

    @property
    def settings(self) -> dict:
        return {"stem": self.stem, "stopwords": self.stopwords}


@lru_cache(maxsize=1 << 18)
def _stem(word: str) -> str:
    return porter_stem(word)


@lru_cache(maxsize=1 << 17)
def _terms(text: str, stem: bool, stopwords: bool) -> tuple[str, ...]:
    # cached: the same responses and descriptions are analysed again by every model built on them
    words = _WORD.findall(text.lower())
    if stopwords:
        words = [w for w in words if w not in STOPWORDS]
    if stem:
        words = [_stem(w) for w in words]
    return tuple(words)


@dataclass(frozen=True)
class IdfTable:
    """idf(t) = ln((N + 1) / (df(t) + 0.5)): always > 0, so a term every response holds still counts a
    little and a small pool (even one response) gives usable weights; a term never seen gets the
    largest idf.

    ``source`` records where the counts came from (a user corpus, a df table or the response pool).
    """

    df: Mapping[str, int]
    n_documents: int
    source: str

    def __post_init__(self):
        if self.n_documents < 1:
            raise ValueError("an idf table needs at least one document")
        for term, count in self.df.items():
            if not 0 <= count <= self.n_documents:
                raise ValueError(f"df of {term!r} is {count}, outside 0..{self.n_documents}")

    def idf(self, term: str) -> float:
        return math.log((self.n_documents + 1) / (self.df.get(term, 0) + 0.5))

    @classmethod
    def from_documents(cls, documents: Iterable[str], analyzer: Analyzer, source: str = "corpus") -> "IdfTable":
        return cls.from_term_lists((analyzer.terms(doc) for doc in documents), source)

    @classmethod
    def from_term_lists(cls, term_lists: Iterable[list[str]], source: str) -> "IdfTable":
        df: Counter = Counter()
        n = 0
        for terms in term_lists:
            n += 1
            df.update(set(terms))
        return cls(dict(df), max(n, 1), source)

    @classmethod
    def from_df_file(cls, path) -> "IdfTable":
        """A df table: first line ``N <documents>``, then ``<term>\\t<df>`` per line."""
        from ..errors import InputFormatError
        from ..io import iter_lines

        df: dict[str, int] = {}
        n_docs = None
        for lineno, line in iter_lines(path):
            if not line.strip():
                continue
            cols = line.split("\t")
            try:
                if n_docs is None:
                    head, value = line.split()
                    if head != "N":
                        raise ValueError
                    n_docs = int(value)
                    continue
                if len(cols) != 2:
                    raise ValueError
                if cols[0] in df:
                    raise InputFormatError(path, lineno, f"term {cols[0]!r} repeats")
                df[cols[0]] = int(cols[1])
            except ValueError:
                expected = "'N <documents>'" if n_docs is None else "'<term>\\t<df>'"
                raise InputFormatError(path, lineno, f"expected {expected}") from None
        if n_docs is None:
            raise InputFormatError(path, None, "empty df table, expected 'N <documents>' first")
        try:
            return cls(df, n_docs, f"df:{path}")
        except ValueError as exc:
            raise InputFormatError(path, None, str(exc)) from None
