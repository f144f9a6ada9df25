"""Turning nugget descriptions and responses into terms, and the idf table that weights them.

Terms are the tokens of the text layer's rouge tokeniser (lower-cased runs of ASCII letters and
digits, as the TREC-era tools saw text), optionally Porter-stemmed (the exact stemmer of
:mod:`qascore.text`, words longer than 3 characters, as rouge-score) and optionally without
stopwords. Batches are encoded by the text layer's compiled encoder; stopwords are then dropped
from the id arrays with numpy, so no per-token Python runs on the scoring path.

The idf of a term comes from one of :data:`IDF_SOURCES` or a user's :class:`IdfTable`
(:func:`resolve_idf`): ``"background"``, the shipped table built from wordfreq's English
frequencies by ``tools/build_background_idf.py`` (``data/README.md``: method and licence), fixed,
so a run's score never depends on the other runs scored with it; or ``"runs"``, each term's
document frequency over the responses scored in the same call (each response a document).
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from collections.abc import Iterable, Mapping, Sequence
from importlib import resources
from types import MappingProxyType

import numpy as np

from ..text import PackedTokens, RougeTokenizer, Vocabulary
from ..text.stopwords import STEMMED_STOPWORDS, STOPWORDS
from ..validate import check_flag


_TOKENIZERS = {False: RougeTokenizer(use_stemmer=False), True: RougeTokenizer(use_stemmer=True)}


@lru_cache(maxsize=1 << 16)
def _terms(text: str, stem: bool, stopwords: bool) -> tuple[str, ...]:
    # cached: the same descriptions and judged responses are analysed by every model built on them
    words = _TOKENIZERS[stem].tokenize(text)
    if stopwords:
        stop = STEMMED_STOPWORDS if stem else STOPWORDS
        words = [w for w in words if w not in stop]
    return tuple(words)


class Analyzer:
    """Text -> terms. ``stem`` uses the exact Porter stemmer; ``stopwords`` drops :data:`STOPWORDS`.

    The analysers' verbs: :meth:`terms` (one text's terms) and :meth:`encode_batch` (a batch packed
    into ids of :attr:`vocab` by the compiled encoder, the same terms as :meth:`terms`).
    """

    def __init__(self, stem: bool = False, stopwords: bool = False):
        self.stem = check_flag(stem, "stem")
        self.stopwords = check_flag(stopwords, "stopwords")
        self.vocab = Vocabulary()
        self._tokenizer = _TOKENIZERS[self.stem]

    def terms(self, text: str) -> tuple[str, ...]:
        return _terms(text, self.stem, self.stopwords)

    def terms_batch(self, texts: Iterable[str]) -> list[tuple[str, ...]]:
        return [_terms(t, self.stem, self.stopwords) for t in texts]

    def encode_batch(self, texts: Sequence[str], n_jobs: int | None = None) -> PackedTokens:
        """``texts`` packed into ids of :attr:`vocab` (row i = text i), stopwords removed when asked."""
        packed = self._tokenizer.encode_batch(list(texts), self.vocab, n_jobs=n_jobs)
        ids, offsets = packed.ids, packed.offsets
        if not self.stopwords or len(ids) == 0:
            return packed
        stop = np.zeros(len(self.vocab), dtype=bool)
        for w in STEMMED_STOPWORDS if self.stem else STOPWORDS:
            i = self.vocab.id_of(w)
            if i is not None:
                stop[i] = True
        keep = ~stop[ids]
        kept = np.zeros(len(ids) + 1, dtype=np.int64)
        np.cumsum(keep, out=kept[1:])
        return PackedTokens(ids[keep], kept[offsets])

    @property
    def settings(self) -> dict:
        return {"stem": self.stem, "stopwords": self.stopwords}


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

    @staticmethod
    def idf_array(n_documents: int, df: np.ndarray) -> np.ndarray:
        """The same formula over an array of document frequencies."""
        return np.log((n_documents + 1) / (np.asarray(df, dtype=np.float64) + 0.5))

    @classmethod
    def from_documents(cls, documents: Iterable[str], analyzer: Analyzer, source: str = "corpus") -> IdfTable:
        return cls.from_term_lists((analyzer.terms(doc) for doc in documents), source)

    @classmethod
    def from_term_lists(cls, term_lists: Iterable[Sequence[str]], source: str) -> IdfTable:
        df: Counter = Counter()
        n = 0
        for terms in term_lists:
            n += 1
            df.update(set(terms))
        return cls(dict(df), max(n, 1), source)

    @classmethod
    def from_df_file(cls, path) -> IdfTable:
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


IDF_SOURCES = ("background", "runs")
BACKGROUND_IDF = "background-wordfreq-en-3.1.1"
_BACKGROUND_FILES = {False: "wordfreq_en.df.gz", True: "wordfreq_en_stemmed.df.gz"}


@lru_cache(maxsize=2)
def background_idf(stem: bool = False) -> IdfTable:
    """The shipped background table: document frequencies of a pseudo corpus of 1,000,000
    documents derived from wordfreq 3.1.1's English frequencies, keyed by this module's terms
    (Porter stems with ``stem``). An unlisted term has df 0: idf ln((N + 1) / 0.5) = 14.51."""
    with resources.as_file(resources.files(__package__) / "data" / _BACKGROUND_FILES[bool(stem)]) as path:
        table = IdfTable.from_df_file(path)
    return BackgroundIdfTable(MappingProxyType(dict(table.df)), table.n_documents, BACKGROUND_IDF, bool(stem))


@dataclass(frozen=True)
class BackgroundIdfTable(IdfTable):
    """The shipped table (read-only); it pickles as a reference to the package data, so a scorer
    sent to a worker carries no copy of its 170,000 terms."""

    stem: bool = False

    def __reduce__(self):
        return background_idf, (self.stem,)


def resolve_idf(idf: str | IdfTable, analyzer: Analyzer, *, load: bool = True) -> IdfTable | None:
    """The table behind an ``idf`` option: an :class:`IdfTable` as given, ``"background"`` the shipped
    table for ``analyzer``'s terms, ``"runs"`` None (idf from the responses scored together).
    ``load=False`` only checks the option (count weights read no idf) and returns None."""
    if isinstance(idf, IdfTable):
        return idf if load else None
    if idf not in IDF_SOURCES:
        raise ValueError(f"idf must be one of {IDF_SOURCES} or an IdfTable, got {idf!r}")
    return background_idf(analyzer.stem) if idf == "background" and load else None
