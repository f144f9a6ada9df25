"""The one metric interface that every method presents (ROUGE, BLEU, MRC, nuggets, EXAM, AVA).

A :class:`Metric` is a configured scorer, in the spirit of sacrebleu's ``Metric`` and
torchmetrics' ``update`` / ``compute``:

* ``score(*batch)`` -> :class:`ExampleScores`: one value per example for each figure;
* ``corpus_score(*batch)`` -> :class:`CorpusScore`: the aggregate figures of a whole batch;
* ``update(*batch)`` then ``compute()``: the same aggregate over a stream of batches, holding only
  sufficient :class:`Statistics` (sums and a count), never the texts;
* ``signature()``: every setting that produced a number, so it can be reproduced.

``corpus_score(batch)`` equals ``update(batch); compute()`` and equals updating with any split
of the batch into parts, bit for bit: statistics add exactly (integer counts, or the exact sums of
:class:`ExactSum` for means of float scores), so a corpus streamed in batches of any size scores
the same as in one call, in memory bounded by a batch.
A subclass defines ``name``, ``settings()``, ``score()``, ``statistics()`` and ``aggregate()``.
"""
from __future__ import annotations

import math

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


@dataclass(frozen=True, init=False)
class CorpusScore:
    """Aggregate figures of a metric over a corpus, with the signature of the settings.

    ``score["rougeL_fmeasure"]`` reads one figure; ``to_dict()`` is ready for strict JSON.
    """

    metric: str
    values: Mapping[str, float]
    n: int
    signature: str

    def __init__(self, metric: str, values: Mapping[str, float], n: int, signature: str) -> None:
        # set once through the instance dict: a frozen dataclass's generated __init__ pays four
        # object.__setattr__ calls, half the cost of a BLEU sentence_score's result (0.8 -> 0.4 us)
        fields = self.__dict__
        fields["metric"], fields["values"], fields["n"], fields["signature"] = metric, values, n, signature

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
        self.accumulate(self.statistics(*batch))

    def accumulate(self, stats: Statistics) -> None:
        """Add statistics computed elsewhere (e.g. from scores a caller also writes out) to the state."""
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


class ExactSum:
    """The exact sum of float64 values, kept as an integer count of ``2**-SCALE`` (every finite
    double is a whole number of those). Sums of any split of the values add to the same number,
    so a mean streamed over batches equals the one-shot mean bit for bit, whatever the chunk
    size; ``mean(n)`` is the correctly rounded mean. Non-finite values are summed apart as floats
    and, when present, are the result (NaN or an infinity)."""

    __slots__ = ("units", "special")
    SCALE = 1074 + 53  # the smallest double is 2**-1074; a 53-bit integer mantissa adds 53 bits
    _BLOCK = 1 << 24  # bincount adds 27-bit halves of mantissas as doubles: exact below 2**53 a bin

    def __init__(self, units: int = 0, special: float | None = None) -> None:
        self.units, self.special = units, special

    @classmethod
    def of(cls, values) -> ExactSum:
        x = np.asarray(values, dtype=np.float64).ravel()
        finite = np.isfinite(x)
        special = None
        if not finite.all():
            special, x = float(np.sum(x[~finite])), x[finite]
        units = 0
        for start in range(0, len(x), cls._BLOCK):
            fraction, exponent = np.frexp(x[start:start + cls._BLOCK])
            mantissa = (fraction * 2.0 ** 53).astype(np.int64)  # exact: |fraction| < 1
            shift = exponent.astype(np.int64) + 1074  # x = mantissa * 2**(shift - SCALE), shift >= 1
            high = np.bincount(shift, weights=mantissa >> 26)
            low = np.bincount(shift, weights=mantissa & ((1 << 26) - 1))
            for b in np.flatnonzero(high != 0) if len(high) else ():
                units += int(high[b]) << (26 + int(b))
            for b in np.flatnonzero(low != 0) if len(low) else ():
                units += int(low[b]) << int(b)
        return cls(units, special)

    def __add__(self, other: ExactSum) -> ExactSum:
        if not isinstance(other, ExactSum):
            return NotImplemented
        special = self.special if other.special is None else other.special if self.special is None \
            else self.special + other.special
        return ExactSum(self.units + other.units, special)

    def __float__(self) -> float:
        return self.special if self.special is not None else self._rounded(self.units, 1 << self.SCALE)

    def mean(self, n: int) -> float:
        """The sum over ``n``, rounded once (0.0 for ``n == 0``, never NaN)."""
        if not n:
            return 0.0
        return self.special if self.special is not None else self._rounded(self.units, n << self.SCALE)

    @staticmethod
    def _rounded(units: int, divisor: int) -> float:
        """``units / divisor`` rounded to a double; beyond the largest double, an infinity (as IEEE
        rounding of the exact value gives), not Python's OverflowError."""
        try:
            return units / divisor
        except OverflowError:
            return math.inf if units > 0 else -math.inf

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ExactSum) and (self.units, self.special) == (other.units, other.special)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"ExactSum({float(self)!r})"


def mean_statistics(columns: Mapping[str, np.ndarray], n: int) -> Statistics:
    """Statistics of metrics whose corpus figure is the mean of per-example values: exact sums, so
    any split of a corpus into batches gives the same figures."""
    return Statistics({k: ExactSum.of(v) for k, v in columns.items()}, n)


def mean_values(statistics: Statistics) -> dict[str, float]:
    """The correctly rounded means of :func:`mean_statistics` sums (0.0 for an empty corpus, never NaN)."""
    return {k: v.mean(statistics.n) for k, v in statistics.sums.items()}
