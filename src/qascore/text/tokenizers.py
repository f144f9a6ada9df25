"""Tokenisers: the one protocol and the one registry of every tokeniser in qascore.

A tokeniser has ``name``, ``signature()`` (what a result's signature records), ``tokenize(text)``
(the readable reference: the token list), ``__call__(text)`` (the tokenised text: tokens separated
by whitespace, ``tokenize(text) == tok(text).split()``), ``tokenize_batch(texts)`` and
``encode_batch(texts, vocab, n_jobs=None) -> PackedTokens`` (token ids interned in ``vocab``).
``encode_batch`` always gives what ``vocab.pack(tokenize_batch(texts))`` gives; the tokenisers with a
kernel mode do it in compiled code (``encode.py``), the others through ``Vocabulary.pack``.

Three families are members, each defined in its own module and all built by :func:`get_tokenizer`:

* here: ``rouge`` (rouge-score's), ``unicode``, ``whitespace``, ``char`` (also sacrebleu's ``char``:
  the same tokens) and ``words`` (EXAM's and the nuggets' terms);
* :mod:`qascore.text.sacrebleu_tokenizers`: sacrebleu's ``13a``, ``none``, ``intl``, ``zh``,
  ``ja-mecab``, ``ko-mecab``, ``spm``, ``flores101``, ``flores200``, ``spBLEU-1K``;
* :mod:`qascore.text.tercom`: TER's ``tercom``.

The other two families are imported on first use (the table names their module), so importing
this module costs nothing for them.
"""
from __future__ import annotations

import importlib
import re
import unicodedata
from functools import lru_cache, partial
from typing import Any, Protocol
from collections.abc import Callable, Sequence

import numpy as np

from .encode import MODE_CHAR, MODE_CLASSES, MODE_ROUGE, MODE_WHITESPACE, class_table, encode_texts, lean_encoder
from .packing import PackedTokens, Vocabulary, check_texts
from .porter import porter_stem

__all__ = ["CharTokenizer", "RougeTokenizer", "Tokenizer", "TokenizerBase", "UnicodeWordTokenizer",
           "WhitespaceTokenizer", "WordTermTokenizer", "get_tokenizer", "register_tokenizer", "tokenizer_names"]

class Tokenizer(Protocol):
    """What every tokeniser offers (a typing protocol; :class:`TokenizerBase` is the base that
    implements it): ``name``, ``signature()``, ``tokenize(text)`` (the token list), ``tok(text)``
    (the tokenised text, ``tokenize(text) == tok(text).split()``), ``tokenize_batch(texts)`` and
    ``encode_batch(texts, vocab, n_jobs=None)`` (token ids interned in ``vocab``).

    Example:

        >>> from qascore.text import Vocabulary, get_tokenizer
        >>> tok = get_tokenizer("13a")
        >>> tok("Hello, world!"), tok.tokenize("Hello, world!")
        ('Hello , world !', ['Hello', ',', 'world', '!'])
        >>> packed = tok.encode_batch(["Hello, world!", "world"], Vocabulary())
        >>> packed.ids.tolist(), packed.offsets.tolist()
        ([0, 1, 2, 3, 2], [0, 4, 5])
    """

    name: str

    def signature(self) -> str: ...

    def __call__(self, text: str, /) -> str: ...

    def tokenize(self, text: str, /) -> list[str]: ...

    def tokenize_batch(self, texts: Sequence[str], /) -> list[list[str]]: ...

    def encode_batch(self, texts: Sequence[str], vocab: Vocabulary, n_jobs: int | None = None) -> PackedTokens: ...


def _check_text(text: str) -> None:
    if not isinstance(text, str):
        raise TypeError(f"text must be str, got {type(text).__name__}")


class TokenizerBase:
    """What every tokeniser shares: the batch methods (validate once, then tokenise text by text)
    and the two forms of one rule. A subclass defines ``name`` and either ``tokenize`` (the token
    list; the tokenised text is the tokens joined by spaces) or ``__call__`` (the tokenised text, as
    sacrebleu's and Tercom's rules are written; the token list is its ``split()``).

    Example:

        >>> from qascore.text import TokenizerBase
        >>> class UpperTokenizer(TokenizerBase):
        ...     name = "upper"
        ...     def tokenize(self, text):
        ...         return text.upper().split()
        >>> tok = UpperTokenizer()
        >>> tok("a b"), tok.tokenize_batch(["x y", ""]), tok.signature()
        ('A B', [['X', 'Y'], []], 'upper')
    """

    __slots__ = ()
    name = ""
    use_stemmer = False

    def signature(self) -> str:
        """What to record in a result's signature: the rule and the stemmer, e.g. ``rouge+porter``."""
        return f"{self.name}+porter" if self.use_stemmer else self.name

    def __call__(self, text: str) -> str:
        return " ".join(self.tokenize(text))

    def tokenize(self, text: str) -> list[str]:
        return self(text).split()

    def tokenize_batch(self, texts: Sequence[str]) -> list[list[str]]:
        texts = texts if isinstance(texts, (list, tuple)) else list(texts)  # a generator is read once
        check_texts(texts)
        return [self.tokenize(text) for text in texts]

    def encode_batch(self, texts: Sequence[str], vocab: Vocabulary, n_jobs: int | None = None) -> PackedTokens:
        """Token ids of ``texts`` interned in ``vocab``: ``vocab.pack(self.tokenize_batch(texts))``,
        computed in compiled code where the tokeniser has a kernel mode."""
        return vocab.pack(self.tokenize_batch(texts))

    def lean_encoder(self, vocab: Vocabulary):
        """``texts -> (ids, offsets)`` like ``encode_batch(texts, vocab, n_jobs=1)`` with the least
        per-call work, for one pair at a time; None where this tokeniser has no such route."""
        return None

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class WhitespaceTokenizer(TokenizerBase):
    """``str.split()``: runs of Unicode whitespace separate tokens; nothing else changes.

    Example:

        >>> from qascore.text import WhitespaceTokenizer
        >>> WhitespaceTokenizer().tokenize(" New  York\tcity ")
        ['New', 'York', 'city']

    :raises TypeError: from :meth:`tokenize` when ``text`` is not a str.
    """

    name = "whitespace"

    def tokenize(self, text: str) -> list[str]:
        _check_text(text)
        return text.split()

    def encode_batch(self, texts: Sequence[str], vocab: Vocabulary, n_jobs: int | None = None) -> PackedTokens:
        return encode_texts(texts, vocab, n_jobs, MODE_WHITESPACE)


class CharTokenizer(TokenizerBase):
    """DuReader convention (and sacrebleu's ``char``): drop whitespace code points, then one token
    per code point.

    Example:

        >>> from qascore.text import CharTokenizer
        >>> CharTokenizer().tokenize("北京 市")
        ['北', '京', '市']
        >>> CharTokenizer()("ab c")  # sacrebleu's char line keeps the space as a character
        'a b   c'

    :raises TypeError: from :meth:`tokenize` when ``text`` is not a str.
    """

    name = "char"

    def __call__(self, text: str) -> str:
        """sacrebleu's ``char`` line: every character, whitespace included, one space between two;
        its ``split()`` is :meth:`tokenize` (``str.split`` and ``str.isspace`` share one definition)."""
        return " ".join(text)

    def tokenize(self, text: str) -> list[str]:
        _check_text(text)
        return [c for c in text if not c.isspace()]

    def encode_batch(self, texts: Sequence[str], vocab: Vocabulary, n_jobs: int | None = None) -> PackedTokens:
        return encode_texts(texts, vocab, n_jobs, MODE_CHAR)


_NON_ALPHANUMERIC = re.compile(r"[^a-z0-9]+")


def _stem_long_token(token: str) -> str:
    """rouge-score stems only tokens longer than 3 characters."""
    return porter_stem(token) if len(token) > 3 else token


class RougeTokenizer(TokenizerBase):
    """rouge-score 0.1.2's default tokeniser, bit for bit.

    ``text.lower()``; every run of characters outside ``[a-z0-9]`` becomes one space; split on
    spaces; with ``use_stemmer``, tokens longer than 3 characters are Porter-stemmed (NLTK rules,
    see :mod:`qascore.text.porter`). Everything non-ASCII is deleted, except the two code points
    whose lowercase is ASCII: U+0130 (``İ`` -> ``i`` + combining dot, so ``i`` ends a token) and
    U+212A (Kelvin sign -> ``k``).

    Example:

        >>> from qascore.text import RougeTokenizer
        >>> RougeTokenizer()("Hello, World 42!")
        'hello world 42'
        >>> tok = RougeTokenizer(use_stemmer=True)
        >>> tok.tokenize("The cats were running!"), tok.signature()
        (['the', 'cat', 'were', 'run'], 'rouge+porter')

    :param use_stemmer: Porter-stem tokens longer than 3 characters, as rouge-score's
        ``use_stemmer=True``.
    :raises TypeError: from :meth:`tokenize` when ``text`` is not a str.
    """

    name = "rouge"

    def __init__(self, use_stemmer: bool = False) -> None:
        self.use_stemmer = bool(use_stemmer)

    def tokenize(self, text: str) -> list[str]:
        _check_text(text)
        tokens = _NON_ALPHANUMERIC.sub(" ", text.lower()).split()
        if self.use_stemmer:
            # rouge-score drops tokens that are empty after stemming; Porter never empties a
            # token longer than 3 characters, so none are dropped here.
            tokens = [_stem_long_token(token) for token in tokens]
        return tokens

    def encode_batch(self, texts: Sequence[str], vocab: Vocabulary, n_jobs: int | None = None) -> PackedTokens:
        if self.use_stemmer:
            return encode_texts(texts, vocab, n_jobs, MODE_ROUGE, "porter>3", _stem_long_token)
        return encode_texts(texts, vocab, n_jobs, MODE_ROUGE)

    def lean_encoder(self, vocab: Vocabulary):
        return None if self.use_stemmer else lean_encoder(vocab, MODE_ROUGE)

    def __repr__(self) -> str:
        return f"RougeTokenizer(use_stemmer={self.use_stemmer})"


# Scripts written without spaces between words: each character is its own token.
_SCRIPTIO_CONTINUA_RANGES = (
    (0x0E00, 0x0E7F),  # Thai
    (0x0E80, 0x0EFF),  # Lao
    (0x1000, 0x109F),  # Myanmar
    (0x1780, 0x17FF),  # Khmer
    (0x19E0, 0x19FF),  # Khmer symbols
    (0x3040, 0x309F),  # Hiragana
    (0x30A0, 0x30FF),  # Katakana
    (0x31F0, 0x31FF),  # Katakana phonetic extensions
    (0x3400, 0x4DBF),  # CJK unified ideographs extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xA9E0, 0xA9FF),  # Myanmar extended-B
    (0xAA60, 0xAA7F),  # Myanmar extended-A
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0xFF66, 0xFF9F),  # halfwidth Katakana
    (0x1AFF0, 0x1AFFF),  # Kana extended-B (Unicode 14: Taiwanese kana)
    (0x1B000, 0x1B16F),  # Kana supplement and extended-A
    (0x20000, 0x323AF),  # CJK extensions B..H and compatibility supplement
)

WORD, SINGLE, MARK, SEPARATOR = 0, 1, 2, 3


def unicode_char_class(char: str) -> int:
    """Class of one code point for :class:`UnicodeWordTokenizer` (WORD/SINGLE/MARK/SEPARATOR)."""
    code = ord(char)
    category = unicodedata.category(char)
    if category[0] == "M":
        return MARK
    if category[0] not in "LN":
        return SEPARATOR
    if category[0] == "N":  # digits of every script group into numbers
        return WORD
    for low, high in _SCRIPTIO_CONTINUA_RANGES:
        if low <= code <= high:
            return SINGLE
    return WORD


_cached_char_class = lru_cache(maxsize=1 << 16)(unicode_char_class)
_ASCII_WORD = re.compile(r"[a-z0-9]+")


def _stem_long_ascii_word(token: str) -> str:
    return porter_stem(token) if len(token) > 3 and _ASCII_WORD.fullmatch(token) else token


class UnicodeWordTokenizer(TokenizerBase):
    """Words in any script, for text the rouge tokeniser deletes (Chinese, Thai, Russian, ...).

    Rule: ``text.casefold()``; a token is a maximal run of letters (Unicode category L*) and
    numbers (N*), combining marks (M*) included when they follow one; everything else (spaces,
    punctuation, symbols, underscore) separates tokens. Characters of scripts written without
    spaces between words (CJK ideographs, Hiragana, Katakana, Thai, Lao, Khmer, Myanmar) are each
    one token, keeping the combining marks that follow them; their digits still group. A mark with nothing to
    attach to is
    dropped. With ``use_stemmer``, tokens of ASCII letters and digits longer than 3 characters are
    Porter-stemmed as in the rouge tokeniser.

    Example:

        >>> from qascore.text import UnicodeWordTokenizer
        >>> UnicodeWordTokenizer().tokenize("Café 北京 in 2024!")
        ['café', '北', '京', 'in', '2024']

    :param use_stemmer: Porter-stem ASCII tokens longer than 3 characters.
    :raises TypeError: from :meth:`tokenize` when ``text`` is not a str.
    """

    name = "unicode"

    def __init__(self, use_stemmer: bool = False) -> None:
        self.use_stemmer = bool(use_stemmer)

    def tokenize(self, text: str) -> list[str]:
        _check_text(text)
        tokens: list[str] = []
        current: list[str] = []  # characters of the token being built
        current_is_single = False
        for char in text.casefold():
            kind = _cached_char_class(char)
            if kind == MARK:
                if current:
                    current.append(char)
                continue
            if kind == SEPARATOR or kind == SINGLE or current_is_single:
                if current:
                    tokens.append("".join(current))
                    current = []
            if kind != SEPARATOR:
                current.append(char)
            current_is_single = kind == SINGLE
        if current:
            tokens.append("".join(current))
        if self.use_stemmer:
            tokens = [_stem_long_ascii_word(token) for token in tokens]
        return tokens

    def encode_batch(self, texts: Sequence[str], vocab: Vocabulary, n_jobs: int | None = None) -> PackedTokens:
        classes = class_table(unicode_char_class, WORD, SINGLE, MARK, SEPARATOR)
        rewrite = _stem_long_ascii_word if self.use_stemmer else None
        return encode_texts(
            texts, vocab, n_jobs, MODE_CLASSES, rewrite and "porter-ascii>3", rewrite, classes, str.casefold
        )

    def __repr__(self) -> str:
        return f"UnicodeWordTokenizer(use_stemmer={self.use_stemmer})"


_WORD = re.compile(r"\w+")
_WORD_OR_BREAK = re.compile(r"\w+|\x00")  # NUL separates texts joined for one regex pass
_BREAK, _DROPPED = -2, -1
_WORD_CACHE_LIMIT = 1 << 20  # distinct words remembered per tokeniser before the cache starts over


class WordTermTokenizer(TokenizerBase):
    """Terms for lexical matching: ``text.lower()``, runs of ``\\w`` (Unicode word characters),
    stopwords dropped, then each word through ``stem`` (any ``str -> str``; None keeps it).

    Each distinct word is analysed once and cached on the tokeniser, so a large collection costs
    one regex pass per batch and a dictionary lookup per token. This is the rule of EXAM's
    lexical solvers and of the rubric workbench's free-text answer normalisation.

    Example:

        >>> from qascore.text import WordTermTokenizer
        >>> tok = WordTermTokenizer(stem=str.upper, stopwords={"the"})
        >>> tok.tokenize("The cat sat."), tok.signature()
        (['CAT', 'SAT'], 'words-lower-nostop-stem')

    :param stem: ``str -> str`` applied to each kept word (None keeps words as they are).
    :param stopwords: lowercase words to drop.
    :raises TypeError: from :meth:`tokenize` when ``text`` is not a str.
    """

    name = "words"

    def __init__(self, stem=None, stopwords=frozenset()) -> None:
        self._stem = stem
        self._stopwords = frozenset(stopwords)
        self._cache: dict[str, str | None] = {}
        self.use_stemmer = stem is not None

    def signature(self) -> str:
        parts = ["words", "lower"] + (["nostop"] if self._stopwords else []) + (["stem"] if self._stem else [])
        return "-".join(parts)

    def _term(self, word: str) -> str | None:
        term = self._cache.get(word, "")
        if term == "":
            term = None if word in self._stopwords else (self._stem(word) if self._stem else word)
            if len(self._cache) >= _WORD_CACHE_LIMIT:  # bounded: a long-running process sees endless words
                self._cache.clear()
            self._cache[word] = term
        return term

    def tokenize(self, text: str) -> list[str]:
        _check_text(text)
        terms = map(self._term, _WORD.findall(text.lower()))
        return [term for term in terms if term is not None]

    def encode_batch(self, texts: Sequence[str], vocab: Vocabulary, n_jobs: int | None = None) -> PackedTokens:
        """Same terms as :meth:`tokenize`, packed in one regex pass over all texts."""
        texts = texts if isinstance(texts, (list, tuple)) else list(texts)
        check_texts(texts)
        words = _WORD_OR_BREAK.findall("\x00".join(t.replace("\x00", " ") for t in texts).lower())
        # word -> id map local to the call, so concurrent calls never share it; all new terms are
        # interned in one pack
        distinct = list(set(words).difference(("\x00",)))
        kept = [(w, t) for w, t in zip(distinct, map(self._term, distinct)) if t is not None]
        ids_of = dict.fromkeys(distinct, _DROPPED)
        ids_of["\x00"] = _BREAK
        if kept:
            ids_of.update(zip((w for w, _ in kept), vocab.pack([[t for _, t in kept]]).ids.tolist()))
        ids = np.array(list(map(ids_of.__getitem__, words)), dtype=np.int64)
        row = np.cumsum(ids == _BREAK)
        keep = ids >= 0
        counts = np.bincount(row[keep], minlength=len(texts)) if len(texts) else np.zeros(0, dtype=np.int64)
        offsets = np.zeros(len(texts) + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        return PackedTokens(ids[keep].astype(np.int32), offsets)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(stem={self._stem!r}, stopwords={len(self._stopwords)} words)"


# The one table of tokeniser names: a class here, or (module, class, arguments) of a family imported
# on first use.
_REGISTRY: dict[str, Any] = {
    "whitespace": WhitespaceTokenizer,
    "char": CharTokenizer,
    "rouge": RougeTokenizer,
    "words": WordTermTokenizer,
    "unicode": UnicodeWordTokenizer,
    **{name: (".sacrebleu_tokenizers", cls, ()) for name, cls in (
        ("13a", "Tokenizer13a"), ("none", "TokenizerNone"), ("intl", "TokenizerIntl"), ("zh", "TokenizerZh"),
        ("ja-mecab", "TokenizerJaMecab"), ("ko-mecab", "TokenizerKoMecab"))},
    **{name: (".sacrebleu_tokenizers", "TokenizerSPM", (name,))
       for name in ("spm", "flores101", "flores200", "spBLEU-1K")},
    "tercom": (".tercom", "TercomTokenizer", ()),
}


def register_tokenizer(name: str, factory: Callable[..., Tokenizer]) -> None:
    """Add a tokeniser to the registry: ``factory(**options)`` builds it (a class of the protocol,
    e.g. a subclass of :class:`TokenizerBase`). A name already registered is replaced.

    Example:

        >>> from qascore.text import TokenizerBase, get_tokenizer, register_tokenizer
        >>> class LowerTokenizer(TokenizerBase):
        ...     name = "lower-split"
        ...     def tokenize(self, text):
        ...         return text.lower().split()
        >>> register_tokenizer("lower-split", LowerTokenizer)
        >>> get_tokenizer("lower-split").tokenize("Hello World")
        ['hello', 'world']

    :param name: the name :func:`get_tokenizer` will build it by.
    :param factory: a callable that takes the tokeniser's options as keywords and returns it.
    """
    _REGISTRY[name] = factory


def tokenizer_names() -> tuple[str, ...]:
    """Every registered tokeniser name, in registration order.

    Example:

        >>> from qascore.text import tokenizer_names
        >>> tokenizer_names()[:5]
        ('whitespace', 'char', 'rouge', 'words', 'unicode')
        >>> "13a" in tokenizer_names() and "tercom" in tokenizer_names()
        True

    :returns: a tuple of the names :func:`get_tokenizer` accepts.
    """
    return tuple(_REGISTRY)


def get_tokenizer(name: str, **options) -> Tokenizer:
    """Build a tokeniser by name with its options: ``rouge`` (``use_stemmer``), ``unicode``
    (``use_stemmer``), ``whitespace``, ``char``, ``words`` (``stem``, ``stopwords``); sacrebleu's
    ``13a``, ``none``, ``intl``, ``zh``, ``ja-mecab``, ``ko-mecab``, ``spm``, ``flores101``,
    ``flores200``, ``spBLEU-1K`` (``model_file``); TER's ``tercom`` (``normalized``, ``no_punct``,
    ``asian_support``, ``case_sensitive``); and any added by :func:`register_tokenizer`.

    Example:

        >>> from qascore.text import get_tokenizer
        >>> get_tokenizer("rouge", use_stemmer=True).tokenize("Cats running")
        ['cat', 'run']
        >>> get_tokenizer("13a")("Hello, world!")
        'Hello , world !'

    :param name: a registered name (see :func:`tokenizer_names`).
    :param options: keyword options of that tokeniser.
    :returns: the tokeniser, a :class:`Tokenizer`.
    :raises ValueError: for a name that is not registered (the message lists the known names).
    """
    try:
        factory = _REGISTRY[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown tokenizer {name!r}; known: {', '.join(sorted(_REGISTRY))}") from None
    if isinstance(factory, tuple):
        module, attribute, arguments = factory
        factory = getattr(importlib.import_module(module, __package__), attribute)
        factory = partial(factory, *arguments) if arguments else factory
    return factory(**options)
