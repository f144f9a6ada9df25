"""Interning tokens into ids and packing token lists into flat arrays."""
from __future__ import annotations

import threading
from typing import Callable, Hashable, Iterable, Sequence, TypeVar

import numpy as np

State = TypeVar("State")


def check_texts(texts: Sequence[str], what: str = "texts") -> None:
    """Raise a TypeError naming the first element that is not a str (None included)."""
    for index, text in enumerate(texts):
        if not isinstance(text, str):
            raise TypeError(f"{what}[{index}] must be str, got {type(text).__name__}")


class PackedTokens:
    """Token ids of a batch: row i is ``ids[offsets[i]:offsets[i + 1]]``. Treat as read-only.

    A plain slotted class rather than a dataclass: built once per encode call, and that call
    must stay cheap for one-pair scoring.
    """

    __slots__ = ("ids", "offsets")

    def __init__(self, ids: np.ndarray, offsets: np.ndarray) -> None:
        self.ids = ids  # int32, flat
        self.offsets = offsets  # int64, len(batch) + 1

    def __repr__(self) -> str:
        return f"PackedTokens(rows={len(self)}, tokens={len(self.ids)})"

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def row(self, i: int) -> np.ndarray:
        return self.ids[self.offsets[i] : self.offsets[i + 1]]

    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)


class Vocabulary:
    """Maps token strings to dense int32 ids, growing as batches are packed.

    One vocabulary may be shared by threads: packing and encoding hold its lock. Compiled encoders
    keep per-vocabulary caches (raw token tables, raw id -> id arrays) in :meth:`encoder_state`.
    """

    def __init__(self) -> None:
        self._ids: dict[str, int] = {}
        self._tokens: list[str] = []
        self._encoder_states: dict[Hashable, object] = {}
        self.lock = threading.RLock()

    def __len__(self) -> int:
        return len(self._tokens)

    def token(self, token_id: int) -> str:
        return self._tokens[token_id]

    def id_of(self, token: str) -> int | None:
        return self._ids.get(token)

    def intern(self, tokens: Iterable[str]) -> list[int]:
        """Ids of ``tokens``, adding the new ones in order of first appearance."""
        ids = self._ids
        known = self._tokens
        out = []
        with self.lock:
            for tok in tokens:
                tid = ids.get(tok)
                if tid is None:
                    tid = len(known)
                    ids[tok] = tid
                    known.append(tok)
                out.append(tid)
        return out

    def pack(self, token_lists: Iterable[Sequence[str]]) -> PackedTokens:
        flat: list[int] = []
        offsets = [0]
        with self.lock:
            for toks in token_lists:
                flat += self.intern(toks)
                offsets.append(len(flat))
        return PackedTokens(np.asarray(flat, dtype=np.int32), np.asarray(offsets, dtype=np.int64))

    def __getstate__(self) -> dict:
        # Encoder caches and the lock are rebuilt on demand, so a vocabulary pickles (e.g. to workers).
        return {"tokens": self._tokens}

    def __setstate__(self, state: dict) -> None:
        self.__init__()
        self._tokens = list(state["tokens"])
        self._ids = {token: index for index, token in enumerate(self._tokens)}

    def encoder_state(self, key: Hashable, create: Callable[[], State]) -> State:
        """The cache an encoder keeps for this vocabulary under ``key``, created on first use."""
        with self.lock:
            state = self._encoder_states.get(key)
            if state is None:
                state = self._encoder_states[key] = create()
            return state
