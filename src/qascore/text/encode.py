"""Batch encoding in compiled code: texts -> packed vocabulary ids, no per-token Python work.

The kernel (``kernels/text_encode.pyx``) tokenises and interns every token into *raw ids* of a
per-vocabulary byte table. Each new raw token type is then mapped once, in Python, to its
vocabulary id (after Porter stemming when asked) and kept in a raw id -> id array; a batch's ids
are that array indexed by its raw ids. Stemmed and unstemmed encoders share the raw table and keep
one array each. Result: the same tokens as ``vocab.pack(tokenizer.tokenize_batch(texts))``, and
for a fresh vocabulary the same ids.
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from .._kernels.text_encode import RawInterner, encode_rouge_raw, map_raw_ids
from .._parallel import resolve_n_jobs
from .packing import PackedTokens, Vocabulary, check_texts
from .porter import porter_stem

# Fewer texts than this per thread run on the calling thread: starting threads costs more.
MIN_TEXTS_PER_THREAD = 512


class _RawToIds:
    """Growing int32 array: raw id -> vocabulary id, for one vocabulary and one token rewrite."""

    def __init__(self, rewrite: Callable[[str], str] | None) -> None:
        self.rewrite = rewrite
        self.ids = np.empty(1024, dtype=np.int32)
        self.filled = 0

    def catch_up(self, interner: RawInterner, vocab: Vocabulary) -> None:
        """Map the raw ids the interner has gained since the last call (in raw id order)."""
        new_tokens = interner.tokens_from(self.filled)
        if self.rewrite is not None:
            new_tokens = [self.rewrite(token) for token in new_tokens]
        needed = self.filled + len(new_tokens)
        if needed > len(self.ids):
            self.ids = np.resize(self.ids, max(needed, 2 * len(self.ids)))
        self.ids[self.filled : needed] = vocab.intern(new_tokens)
        self.filled = needed


def _stem_long_token(token: str) -> str:
    """rouge-score stems only tokens longer than 3 characters."""
    return porter_stem(token) if len(token) > 3 else token


class _RougeEncoderState:
    """What one vocabulary keeps for the rouge encoder: the raw table and one map per stemming."""

    def __init__(self) -> None:
        self.interner = RawInterner()
        self.raw_to_ids = {False: _RawToIds(None), True: _RawToIds(_stem_long_token)}


def thread_count(n_texts: int, n_jobs: int | None) -> int:
    """Threads worth starting for ``n_texts`` texts under the caller's ``n_jobs``."""
    if n_jobs == 1 or (n_jobs is None and n_texts < 2 * MIN_TEXTS_PER_THREAD):
        return 1  # the common small call skips the affinity query
    return max(1, min(resolve_n_jobs(n_jobs), n_texts // MIN_TEXTS_PER_THREAD))


def encode_rouge_batch(
    texts: Sequence[str], vocab: Vocabulary, use_stemmer: bool, n_jobs: int | None = None
) -> PackedTokens:
    """rouge-score tokens of ``texts`` as ids of ``vocab`` (see :class:`RougeTokenizer`)."""
    texts = texts if type(texts) is list else list(texts)
    check_texts(texts)
    threads = thread_count(len(texts), n_jobs)
    state = vocab.encoder_state("rouge", _RougeEncoderState)
    raw_to_ids = state.raw_to_ids[use_stemmer]
    with vocab.lock:
        raw, offsets = encode_rouge_raw(texts, state.interner, threads)
        if raw_to_ids.filled < len(state.interner):
            raw_to_ids.catch_up(state.interner, vocab)
        map_raw_ids(raw, raw_to_ids.ids)
    return PackedTokens(raw, offsets)
