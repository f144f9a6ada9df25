"""Judge each triple once: verdicts kept in memory and, optionally, on disk across runs.

:class:`CachedJudge` wraps any judge. A triple is keyed by its exact question, references and
candidate and by the wrapped judge's signature (every setting that changes a probability), so a
verdict is reused only by the same judge under the same settings, and a cached probability is the
very float the judge gave (SQLite stores IEEE doubles as they are). With a ``directory``, the
verdicts go into ``DIR/verdicts.sqlite`` as well: re-scoring a leaderboard after adding a system
judges only the new answers.
"""
from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
from pathlib import Path

import numpy as np

from .base import Judge, Verdicts
from .triples import check_triples

CACHE_FILE = "verdicts.sqlite"
MEMORY_ITEMS = 200_000  # verdicts held in memory; the oldest half goes when it is full


def triple_key(signature: str, question: str, references, candidate: str) -> bytes:
    """A digest of the judge's signature and the exact triple (a single reference and a list of one
    are the same triple)."""
    refs = [references] if isinstance(references, str) else list(references)
    h = hashlib.blake2b(digest_size=20)
    for part in (signature, question, candidate, *refs):
        data = part.encode("utf-8", "surrogatepass")
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.digest()


class CachedJudge(Judge):
    """``judge`` with its verdicts remembered (in memory, and in ``directory`` when given).

    Its threshold, reference rule, settings and signature are the wrapped judge's: the cache
    changes no number. ``hits`` and ``misses`` count the triples found and judged.

    Example:

        >>> import tempfile
        >>> from qascore.judges import ContainmentJudge
        >>> folder = tempfile.TemporaryDirectory()
        >>> judge = CachedJudge(ContainmentJudge(), folder.name)
        >>> triples = (["capital of France?"], ["Paris"], ["Paris"])
        >>> judge.judge(*triples).labels.tolist(), judge.judge(*triples).labels.tolist()
        ([True], [True])
        >>> judge.hits, judge.misses
        (1, 1)
        >>> del judge  # closes its database
        >>> folder.cleanup()

    :param judge: the judge whose verdicts are remembered.
    :param directory: a directory for the on-disk cache (SQLite), or None for memory only.
    :param memory_items: how many verdicts the memory keeps.
    """

    def __init__(self, judge: Judge, directory=None, *, memory_items: int = MEMORY_ITEMS) -> None:
        self.inner = judge
        self.name = judge.name
        self.directory = None if directory is None else Path(directory)
        self.memory_items = int(memory_items)
        self.memory: dict[bytes, float] = {}
        self.hits = self.misses = 0
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        if self.directory is not None:
            self._open()

    def _open(self) -> None:
        assert self.directory is not None
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(os.fspath(self.directory / CACHE_FILE), check_same_thread=False)
            self._db.execute("CREATE TABLE IF NOT EXISTS verdicts (key BLOB PRIMARY KEY, proba REAL NOT NULL)")
            self._db.commit()
        except (OSError, sqlite3.Error) as error:
            raise OSError(f"{self.directory}: cannot use it as a verdict cache ({error})") from None

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["_db"], state["_lock"] = None, None
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()
        if self.directory is not None:
            self._open()

    @property
    def threshold(self) -> float:
        return self.inner.threshold

    @property
    def refs(self) -> str | None:
        return getattr(self.inner, "refs", None)

    def cached(self, remember) -> Judge:
        return remember(self.inner)

    def with_refs(self, refs: str, threshold: float | None = None) -> CachedJudge:
        if not hasattr(self.inner, "with_refs"):
            return self
        return CachedJudge(self.inner.with_refs(refs, threshold), self.directory, memory_items=self.memory_items)

    def settings(self) -> dict:
        return self.inner.settings()

    def signature(self) -> str:
        return self.inner.signature()

    def _lookup(self, keys: list[bytes]) -> dict[bytes, float]:
        found = {k: self.memory[k] for k in keys if k in self.memory}
        missing = [k for k in dict.fromkeys(keys) if k not in found]
        if self._db is not None and missing:
            with self._lock:
                for start in range(0, len(missing), 500):
                    part = missing[start:start + 500]
                    marks = ",".join("?" * len(part))
                    rows = self._db.execute(f"SELECT key, proba FROM verdicts WHERE key IN ({marks})", part).fetchall()
                    found.update((bytes(k), float(p)) for k, p in rows)
        return found

    def _remember(self, verdicts: dict[bytes, float]) -> None:
        if len(self.memory) + len(verdicts) > self.memory_items:
            for key in list(self.memory)[: len(self.memory) // 2 + 1]:
                del self.memory[key]
        self.memory.update(verdicts)

    def _store(self, fresh: dict[bytes, float]) -> None:
        self._remember(fresh)
        if self._db is not None and fresh:
            with self._lock:
                self._db.executemany("INSERT OR REPLACE INTO verdicts (key, proba) VALUES (?, ?)", fresh.items())
                self._db.commit()

    def predict_proba(self, questions, references, candidates) -> np.ndarray:
        questions, references, candidates = check_triples(questions, references, candidates)
        signature = self.inner.signature()
        keys = [triple_key(signature, q, r, c) for q, r, c in zip(questions, references, candidates)]
        found = self._lookup(keys)
        todo: dict[bytes, int] = {}
        for i, key in enumerate(keys):
            if key not in found:
                todo.setdefault(key, i)
        self.hits += len(keys) - sum(1 for k in keys if k in todo)
        self.misses += len(todo)
        if todo:
            rows = list(todo.values())
            proba = self.inner.predict_proba([questions[i] for i in rows], [references[i] for i in rows],
                                             [candidates[i] for i in rows])
            fresh = {key: float(p) for key, p in zip(todo, np.asarray(proba, dtype=np.float64))}
            self._store(fresh)
            found.update(fresh)
        self._remember({k: found[k] for k in keys if k not in self.memory})
        return np.fromiter((found[k] for k in keys), dtype=np.float64, count=len(keys))

    def judge(self, questions, references, candidates) -> Verdicts:
        proba = self.predict_proba(questions, references, candidates)
        return Verdicts(proba, proba >= float(self.threshold))
