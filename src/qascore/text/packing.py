"""Interning tokens into ids and packing token lists into flat arrays."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np


@dataclass(frozen=True)
class PackedTokens:
    """Token ids of a batch: row i is ``ids[offsets[i]:offsets[i + 1]]``."""

    ids: np.ndarray  # int32, flat
    offsets: np.ndarray  # int64, len(batch) + 1

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def row(self, i: int) -> np.ndarray:
        return self.ids[self.offsets[i] : self.offsets[i + 1]]

    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)


class Vocabulary:
    """Maps token strings to dense int32 ids, growing as batches are packed."""

    def __init__(self) -> None:
        self._ids: dict[str, int] = {}
        self._tokens: list[str] = []

    def __len__(self) -> int:
        return len(self._tokens)

    def token(self, token_id: int) -> str:
        return self._tokens[token_id]

    def id_of(self, token: str) -> int | None:
        return self._ids.get(token)

    def pack(self, token_lists: Iterable[Sequence[str]]) -> PackedTokens:
        ids = self._ids
        tokens = self._tokens
        flat: list[int] = []
        offsets = [0]
        for toks in token_lists:
            for tok in toks:
                tid = ids.get(tok)
                if tid is None:
                    tid = len(tokens)
                    ids[tok] = tid
                    tokens.append(tok)
                flat.append(tid)
            offsets.append(len(flat))
        return PackedTokens(np.asarray(flat, dtype=np.int32), np.asarray(offsets, dtype=np.int64))
