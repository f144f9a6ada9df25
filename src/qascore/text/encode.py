"""Batch encoding in compiled code: texts -> packed vocabulary ids, no per-token Python work.

The kernel (``kernels/text_encode.pyx``) tokenises and interns every token into *raw ids* of a
per-vocabulary byte table (ASCII bytes for the rouge rule, UTF-32 for the others). Each new raw
token type is then mapped once, in Python, to its vocabulary id (after a rewrite such as Porter
stemming) and kept in a raw id -> id array; a batch's ids are that array indexed by its raw ids,
in place, in C. Encoders that differ only by the rewrite share the raw table. Result: the same
tokens as ``vocab.pack(tokenizer.tokenize_batch(texts))``, and for a fresh vocabulary the same ids.

Without a rewrite, a fresh vocabulary takes the raw ids as its ids (``Vocabulary.defer_to``):
no Python string is made per token type unless someone asks the vocabulary for them.
"""
from __future__ import annotations

import sys
from functools import cache

from collections.abc import Callable, Hashable, Sequence

import numpy as np

from .._kernels.text_encode import CharClass, Mode, RawInterner, encode_raw, map_raw_ids
from .._parallel import threads_for
from .packing import PackedTokens, Vocabulary, check_texts

# Fewer texts than this per thread run on the calling thread. Threads intern into chunk tables
# that are then merged in text order; into a fresh vocabulary (what rouge() and BLEU-style calls
# use) that merge costs more than the split saves below ~60k texts (measured on 2 idle cores,
# MS MARCO answers: 20k texts 15 ms on one thread vs 24 ms on two; 80k texts 62 vs 56 ms).
MIN_TEXTS_PER_THREAD = 32768

MODE_ROUGE, MODE_WHITESPACE, MODE_CHAR, MODE_CLASSES = (
    int(Mode.MODE_ROUGE), int(Mode.MODE_WHITESPACE), int(Mode.MODE_CHAR), int(Mode.MODE_CLASSES)
)
_UTF32 = "utf-32-le" if sys.byteorder == "little" else "utf-32-be"
_TOKEN_ENCODING = {MODE_ROUGE: "ascii", MODE_WHITESPACE: _UTF32, MODE_CHAR: _UTF32, MODE_CLASSES: _UTF32}

Rewrite = Callable[[str], str] | None


class _RawToIds:
    """Growing int32 array: raw id -> vocabulary id, for one vocabulary and one token rewrite."""

    def __init__(self, rewrite: Rewrite) -> None:
        self.rewrite = rewrite
        self.ids = np.empty(1024, dtype=np.int32)
        self.filled = 0

    def catch_up(self, interner: RawInterner, encoding: str, vocab: Vocabulary) -> None:
        """Map the raw ids the interner has gained since the last call (in raw id order)."""
        new_tokens = interner.tokens_from(self.filled, encoding)
        if self.rewrite is not None:
            new_tokens = [self.rewrite(token) for token in new_tokens]
        needed = self.filled + len(new_tokens)
        if needed > len(self.ids):
            self.ids = np.resize(self.ids, max(needed, 2 * len(self.ids)))
        self.ids[self.filled : needed] = vocab.intern(new_tokens)
        self.filled = needed


class _EncoderState:
    """What one vocabulary keeps per token encoding: the raw table and one map per rewrite."""

    def __init__(self, encoding: str) -> None:
        self.encoding = encoding
        self.interner = RawInterner()
        self.maps: dict[Hashable, _RawToIds] = {}

    def __len__(self) -> int:
        return len(self.interner)

    def tokens_from(self, first: int) -> list[str]:
        return self.interner.tokens_from(first, self.encoding)

    def raw_to_ids(self, rewrite_key: Hashable, rewrite: Rewrite) -> _RawToIds:
        found = self.maps.get(rewrite_key)
        if found is None:
            found = self.maps[rewrite_key] = _RawToIds(rewrite)
        return found


def encode_texts(
    texts: Sequence[str],
    vocab: Vocabulary,
    n_jobs: int | None,
    mode: int,
    rewrite_key: Hashable = None,
    rewrite: Rewrite = None,
    classes: np.ndarray | None = None,
    normalise: Callable[[str], str] | None = None,
) -> PackedTokens:
    """Tokenise ``texts`` under a kernel ``mode`` and intern into ``vocab``.

    ``normalise`` runs on each text first (e.g. ``str.casefold``); ``rewrite`` on each new token
    type (e.g. stemming), cached per vocabulary under ``rewrite_key``.
    """
    texts = texts if type(texts) is list else list(texts)
    check_texts(texts)
    if normalise is not None:
        texts = [normalise(text) for text in texts]
    threads = threads_for(len(texts), n_jobs, MIN_TEXTS_PER_THREAD)
    encoding = _TOKEN_ENCODING[mode]
    state = vocab.encoder_state(("raw-tokens", encoding), lambda: _EncoderState(encoding))
    with vocab.lock:
        if rewrite is None and vocab.defer_to(state):  # the raw ids are the ids
            return PackedTokens(*encode_raw(texts, state.interner, threads, mode, classes))
        vocab.settle()
        raw_to_ids = state.raw_to_ids((mode, rewrite_key), rewrite)
        raw, offsets = encode_raw(texts, state.interner, threads, mode, classes)
        if raw_to_ids.filled < len(state.interner):
            raw_to_ids.catch_up(state.interner, encoding, vocab)
        map_raw_ids(raw, raw_to_ids.ids)
    return PackedTokens(raw, offsets)


def lean_encoder(vocab: Vocabulary, mode: int) -> Callable[[list[str]], tuple[np.ndarray, np.ndarray]] | None:
    """``texts -> (ids, offsets)`` on the calling thread, for repeated small calls (one pair at a
    time): what :func:`encode_texts` gives without a rewrite, minus its per-call Python work. The
    caller checks the texts are str. None when ``vocab``'s ids do not come from the raw table."""
    encoding = _TOKEN_ENCODING[mode]
    state = vocab.encoder_state(("raw-tokens", encoding), lambda: _EncoderState(encoding))
    if not vocab.defer_to(state):
        return None
    interner, lock = state.interner, vocab.lock

    def encode(texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
        with lock:
            return encode_raw(texts, interner, 1, mode)

    return encode


@cache
def class_table(char_class: Callable[[str], int], word: int, single: int, mark: int, separator: int) -> np.ndarray:
    """The kernel's uint8 class of every code point, from a Python rule ``char_class(char)``
    whose results are ``word``/``single``/``mark``/``separator`` (built once per rule, ~1 s)."""
    to_kernel = {
        word: int(CharClass.CLASS_WORD),
        single: int(CharClass.CLASS_SINGLE),
        mark: int(CharClass.CLASS_MARK),
        separator: int(CharClass.CLASS_SEPARATOR),
    }
    return np.frombuffer(bytes(to_kernel[char_class(chr(code))] for code in range(0x110000)), dtype=np.uint8)
