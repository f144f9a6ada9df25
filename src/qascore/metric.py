"""The one metric interface that every method presents (ROUGE, BLEU, MRC, nuggets, EXAM, AVA).

A :class:`Metric` is a configured scorer, in the spirit of sacrebleu's ``Metric`` and
torchmetrics' ``update`` / ``compute``:

* ``score(*batch)`` -> :class:`ExampleScores`: one value per example for each figure;
* ``corpus_score(*batch)`` -> :class:`CorpusScore`: the aggregate figures of a whole batch;
* ``update(*batch)`` then ``compute()``: the same aggregate over a stream of batches, holding only
  sufficient :class:`Statistics` (sums and a count), never the texts;
* ``signature()``: every setting that produced a number, so it can be reproduced.

``corpus_score(batch)`` equals ``update(batch); compute()`` and equals updating with any split
of the batch into parts (statistics add exactly: integer counts, or float sums whose order is
fixed by the split, so corpus figures of float means can differ in the last bits between splits).
A subclass defines ``name``, ``settings()``, ``score()``, ``statistics()`` and ``aggregate()``.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar
from collections.abc import Iterator, Mapping

import numpy as np

from .signature import make_signature


@dataclass(frozen=True)
class Statistics:
    """Sufficient statistics of a batch: named sums (floats or count arrays) and the example count.

    Two batches' statistics add; the aggregate of the sum is the aggregate of both batches.
    """

    sums: Mapping[str, Any]
    n: int

    def __add__(self, other: Statistics) -> Statistics:
        if not isinstance(other, Statistics):
            return NotImplemented
        if set(self.sums) != set(other.sums):
            raise ValueError(f"cannot add statistics of {sorted(self.sums)} and {sorted(other.sums)}")
        return Statistics({k: self.sums[k] + other.sums[k] for k in self.sums}, self.n + other.n)


@dataclass(frozen=True)
class CorpusScore:
    """Aggregate figures of a metric over a corpus, with the signature of the settings.

    ``score["rougeL_fmeasure"]`` reads one figure; ``to_dict()`` is ready for strict JSON.
    """

    metric: str
    values: Mapping[str, float]
    n: int
    signature: str

    def __getitem__(self, key: str) -> float:
        return self.values[key]

    def to_dict(self) -> dict[str, Any]:
        return {"metric": self.metric, "n": self.n, **self.values, "signature": self.signature}

    def format(self, digits: int = 5) -> str:
        figures = " ".join(f"{k}={v:.{digits}f}" for k, v in self.values.items())
        return f"{self.metric} n={self.n} {figures} | {self.signature}"

    def __str__(self) -> str:
        return self.format()


@dataclass(frozen=True)
class ExampleScores:
    """Per-example figures: one numpy array per figure, each of length ``len(self)``."""

    metric: str
    columns: Mapping[str, np.ndarray]
    signature: str
    ids: list[Any] | None = field(default=None)

    def __len__(self) -> int:
        return len(next(iter(self.columns.values()))) if self.columns else 0

    def __getitem__(self, key: str) -> np.ndarray:
        return self.columns[key]

    def records(self) -> Iterator[dict[str, Any]]:
        """One dict per example (``index`` or ``id`` first), ready for strict JSON lines."""
        lists = {k: np.asarray(v).tolist() for k, v in self.columns.items()}
        for i in range(len(self)):
            head = {"id": self.ids[i]} if self.ids is not None else {"index": i}
            yield {**head, **{k: v[i] for k, v in lists.items()}}


class Metric(ABC):
    """A configured metric: per-example scores, corpus aggregates, streaming, and a signature."""

    name: ClassVar[str]

    @abstractmethod
    def settings(self) -> dict[str, Any]:
        """Every setting that changes a number, in the order the signature lists them."""

    def signature(self) -> str:
        return make_signature(self.name, **self.settings())

    @abstractmethod
    def score(self, *batch: Any) -> ExampleScores:
        """One value per example for each figure."""

    @abstractmethod
    def statistics(self, *batch: Any) -> Statistics:
        """Sufficient statistics of a batch (what ``update`` accumulates)."""

    @abstractmethod
    def aggregate(self, statistics: Statistics) -> CorpusScore:
        """The corpus figures of accumulated statistics."""

    def corpus_score(self, *batch: Any) -> CorpusScore:
        return self.aggregate(self.statistics(*batch))

    # Streaming, torchmetrics-style: state is the running sum of statistics.
    _state: Statistics | None = None

    def update(self, *batch: Any) -> None:
        stats = self.statistics(*batch)
        self._state = stats if self._state is None else self._state + stats

    def compute(self) -> CorpusScore:
        if self._state is None:
            raise ValueError(f"{type(self).__name__}.compute() before any update()")
        return self.aggregate(self._state)

    def reset(self) -> None:
        self._state = None

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.settings().items())
        return f"{type(self).__name__}({args})"


def mean_statistics(columns: Mapping[str, np.ndarray], n: int) -> Statistics:
    """Statistics of metrics whose corpus figure is the mean of per-example values."""
    return Statistics({k: float(np.sum(v, dtype=np.float64)) for k, v in columns.items()}, n)


def mean_values(statistics: Statistics) -> dict[str, float]:
    """The means of :func:`mean_statistics` sums (0.0 for an empty corpus, never NaN)."""
    n = statistics.n
    return {k: (float(v) / n if n else 0.0) for k, v in statistics.sums.items()}
