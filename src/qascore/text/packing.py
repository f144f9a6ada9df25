"""Interning tokens into ids and packing token lists into flat arrays."""
from __future__ import annotations

import threading
from typing import TypeVar, cast
from collections.abc import Callable, Hashable, Iterable, Sequence

import numpy as np

from ..validate import check_texts  # noqa: F401  (re-exported: the text layer's callers validate with it)

State = TypeVar("State")


class PackedTokens:
    """Token ids of a batch: row i is ``ids[offsets[i]:offsets[i + 1]]``. Treat as read-only.

    A plain slotted class rather than a dataclass: built once per encode call, and that call
    must stay cheap for one-pair scoring.

    Example:

        >>> packed = Vocabulary().pack([["a", "b", "a"], [], ["b"]])
        >>> packed, packed.ids.tolist(), packed.offsets.tolist()
        (PackedTokens(rows=3, tokens=4), [0, 1, 0, 1], [0, 3, 3, 4])
        >>> packed.row(2).tolist(), packed.lengths().tolist()
        ([1], [3, 0, 1])

    :param ids: the int32 token ids of every row, concatenated.
    :param offsets: int64 row boundaries, ``len(batch) + 1`` of them, starting at 0.
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

    A compiled encoder may *define* the ids of a fresh vocabulary (:meth:`defer_to`): its table's
    ids are then the vocabulary's ids and the token strings are made only when asked for, so
    scoring a batch never builds a Python string per token type.

    Example:

        >>> vocab = Vocabulary()
        >>> vocab.intern(["the", "cat", "the"])
        [0, 1, 0]
        >>> vocab.id_of("cat"), vocab.id_of("dog"), vocab.token(0), len(vocab)
        (1, None, 'the', 2)
    """

    def __init__(self) -> None:
        self._ids: dict[str, int] = {}
        self._strings: list[str] = []  # token strings made so far, by id
        self._encoder_states: dict[Hashable, object] = {}
        self._deferred = None  # defines the ids past len(self._strings), see defer_to
        self.lock = threading.RLock()

    @property
    def _tokens(self) -> list[str]:
        """Every token string in id order (made now for deferred ids)."""
        self._materialise()
        return self._strings

    def __len__(self) -> int:
        deferred = self._deferred
        return len(self._strings) if deferred is None else len(deferred)

    def token(self, token_id: int) -> str:
        self._materialise()
        return self._strings[token_id]

    def id_of(self, token: str) -> int | None:
        self._materialise()
        return self._ids.get(token)

    def defer_to(self, source) -> bool:
        """Let ``source`` define ids 0, 1, ... of this vocabulary, its strings made lazily.

        ``source`` has ``len()`` and ``tokens_from(first) -> list[str]`` and only grows, giving
        distinct strings. Possible while both are empty (or ``source`` already defines the ids);
        True when ``source``'s ids are this vocabulary's ids.
        """
        with self.lock:
            if self._deferred is source:
                return True
            if self._deferred is None and not self._strings and len(source) == 0:
                self._deferred = source
                return True
            return False

    def settle(self) -> None:
        """Make the deferred strings and stop deferring (before ids are added any other way)."""
        with self.lock:
            self._materialise()
            self._deferred = None

    def _materialise(self) -> None:
        with self.lock:
            deferred = self._deferred
            if deferred is not None and len(deferred) > len(self._strings):
                start = len(self._strings)
                new = deferred.tokens_from(start)
                self._strings.extend(new)
                self._ids.update(zip(new, range(start, start + len(new))))

    def intern(self, tokens: Iterable[str]) -> list[int]:
        """Ids of ``tokens``, adding the new ones in order of first appearance."""
        out = []
        with self.lock:
            self.settle()
            ids = self._ids
            known = self._strings
            for tok in tokens:
                tid = ids.get(tok)
                if tid is None:
                    tid = len(known)
                    ids[tok] = tid
                    known.append(tok)
                out.append(tid)
        return out

    def pack(self, token_lists: Iterable[Sequence[str]]) -> PackedTokens:
        """Token lists as one :class:`PackedTokens`, new tokens interned in order of first appearance.

        Example:

            >>> Vocabulary().pack([["a", "b"], ["b", "c"]]).ids.tolist()
            [0, 1, 1, 2]

        :param token_lists: an iterable of token sequences, one per row.
        :returns: the packed rows.
        """
        flat: list[int] = []
        offsets = [0]
        with self.lock:
            self.settle()
            for toks in token_lists:
                flat += self.intern(toks)
                offsets.append(len(flat))
        return PackedTokens(np.asarray(flat, dtype=np.int32), np.asarray(offsets, dtype=np.int64))

    def __getstate__(self) -> dict:
        # Encoder caches and the lock are rebuilt on demand, so a vocabulary pickles (e.g. to workers).
        self._materialise()
        return {"tokens": self._strings}

    def __setstate__(self, state: dict) -> None:
        Vocabulary.__init__(self)
        self._strings = list(state["tokens"])
        self._ids = {token: index for index, token in enumerate(self._strings)}

    def encoder_state(self, key: Hashable, create: Callable[[], State]) -> State:
        """The cache an encoder keeps for this vocabulary under ``key``, created on first use."""
        with self.lock:
            state = self._encoder_states.get(key)
            if state is None:
                state = self._encoder_states[key] = create()
            return cast(State, state)
