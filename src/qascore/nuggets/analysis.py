"""Turning nugget descriptions and responses into terms, and the idf table that weights them.

Terms are lower-cased word tokens (runs of letters and digits), optionally without stopwords and
optionally Porter-stemmed (the exact stemmer of :mod:`qascore.text`).
"""
from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Mapping

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

    def __post_init__(self):
        if self.stem:
            from ..text import PorterStemmer  # noqa: F401  (fail early when the text layer lacks it)

    def terms(self, text: str) -> list[str]:
        words = _WORD.findall(text.lower())
        if self.stopwords:
            words = [w for w in words if w not in STOPWORDS]
        if self.stem:
            stem = _stemmer().stem
            words = [stem(w) for w in words]
        return words

    def terms_batch(self, texts: Iterable[str]) -> list[list[str]]:
        return [self.terms(t) for t in texts]

    @property
    def settings(self) -> dict:
        return {"stem": self.stem, "stopwords": self.stopwords}


_STEMMER = None


def _stemmer():
    global _STEMMER
    if _STEMMER is None:
        from ..text import PorterStemmer

        _STEMMER = PorterStemmer()
    return _STEMMER


@dataclass(frozen=True)
class IdfTable:
    """idf(t) = ln(N / df(t)), df taken as at least 1 (a term never seen gets the largest idf).

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
        return math.log(self.n_documents / max(1, self.df.get(term, 0)))

    @classmethod
    def from_documents(cls, documents: Iterable[str], analyzer: Analyzer, source: str = "corpus") -> "IdfTable":
        df: Counter = Counter()
        n = 0
        for doc in documents:
            n += 1
            df.update(set(analyzer.terms(doc)))
        return cls(dict(df), n, source)

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
