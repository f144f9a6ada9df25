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

__all__ = ["CorpusScore", "ExactSum", "ExampleScores", "Metric", "Statistics", "mean_statistics", "mean_values"]

@dataclass(frozen=True)
class Statistics:
    """Sufficient statistics of a batch: named sums (floats or count arrays) and the example count.

    Two batches' statistics add; the aggregate of the sum is the aggregate of both batches.
    Adding statistics with other names is a ``ValueError``.

    Example:

        >>> from qascore.metric import Statistics
        >>> Statistics({"hits": 3, "words": 10}, 2) + Statistics({"hits": 1, "words": 5}, 1)
        Statistics(sums={'hits': 4, 'words': 15}, n=3)

    :param sums: the named sums (numbers, numpy arrays or :class:`ExactSum`, anything that adds).
    :param n: the number of examples summed.
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

    ``score["rougeL_fmeasure"]`` reads one figure; ``to_dict()`` is ready for strict JSON;
    ``str(score)`` (:meth:`format`) is one line with every figure and the signature.

    Example:

        >>> from qascore.lexical.ter import TER
        >>> score = TER().corpus_score(["the cat sat on the mat"], [["the cat sat on a mat"]])
        >>> score["score"], score.n
        (16.666666666666664, 1)
        >>> score.to_dict()
        {'metric': 'ter', 'n': 1, 'score': 16.666666666666664, 'num_edits': 1, 'ref_length': 6.0,
         'signature': 'qascore:ter|nrefs:1|...'}
        >>> print(score.format(digits=2))
        ter n=1 score=16.67 num_edits=1.00 ref_length=6.00 | qascore:ter|nrefs:1|case:lc|...

    :param metric: the metric's name.
    :param values: the figures by name.
    :param n: the number of examples.
    :param signature: the settings that produced the figures (:func:`~qascore.signature.make_signature`).
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
        """``metric``, ``n``, every figure and ``signature``, as one flat dict."""
        return {"metric": self.metric, "n": self.n, **self.values, "signature": self.signature}

    def format(self, digits: int = 5) -> str:
        """One line: the metric, ``n``, every figure with ``digits`` decimals, and the signature.

        :param digits: decimals of each figure.
        :returns: ``<metric> n=<n> <name>=<value> ... | <signature>``.
        """
        figures = " ".join(f"{k}={v:.{digits}f}" for k, v in self.values.items())
        return f"{self.metric} n={self.n} {figures} | {self.signature}"

    def __str__(self) -> str:
        return self.format()


@dataclass(frozen=True)
class ExampleScores:
    """Per-example figures: one numpy array per figure, each of length ``len(self)``.

    Example:

        >>> from qascore.lexical.ter import TER
        >>> scores = TER().score(["the cat sat on the mat", "a dog"], [["the cat sat on a mat"], ["a dog"]])
        >>> len(scores), scores["ter"].round(2).tolist()
        (2, [16.67, 0.0])
        >>> [{k: round(v, 2) if k == "ter" else v for k, v in row.items()} for row in scores.records()]
        [{'index': 0, 'ter': 16.67}, {'index': 1, 'ter': 0.0}]

    :param metric: the metric's name.
    :param columns: one array per figure, all of one length.
    :param signature: the settings that produced the figures.
    :param ids: optional example ids, which :meth:`records` writes in place of the index.
    """

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
    """A configured metric: per-example scores, corpus aggregates, streaming, and a signature.

    Example (a metric of one's own, on exact sums so that streaming gives the same bits):

        >>> import numpy as np
        >>> from qascore.metric import CorpusScore, ExampleScores, Metric, mean_statistics, mean_values
        >>> class ExactMatch(Metric):
        ...     name = "exact"
        ...     def __init__(self, lowercase=True):
        ...         self.lowercase = lowercase
        ...     def settings(self):
        ...         return {"lowercase": self.lowercase}
        ...     def score(self, predictions, references):
        ...         fold = str.lower if self.lowercase else str
        ...         match = [float(fold(p) == fold(r)) for p, r in zip(predictions, references)]
        ...         return ExampleScores(self.name, {"match": np.array(match)}, self.signature())
        ...     def statistics(self, predictions, references):
        ...         return mean_statistics(self.score(predictions, references).columns, len(predictions))
        ...     def aggregate(self, statistics):
        ...         return CorpusScore(self.name, mean_values(statistics), statistics.n, self.signature())
        >>> metric = ExactMatch()
        >>> metric.corpus_score(["Paris", "Rome", "Oslo"], ["paris", "Milan", "Oslo"])["match"]
        0.6666666666666666
        >>> metric.update(["Paris"], ["paris"])
        >>> metric.update(["Rome", "Oslo"], ["Milan", "Oslo"])
        >>> metric.compute()["match"]
        0.6666666666666666
        >>> metric, metric.signature()
        (ExactMatch(lowercase=True), 'qascore:exact|lowercase:yes|version:...')
    """

    name: ClassVar[str]

    @abstractmethod
    def settings(self) -> dict[str, Any]:
        """Every setting that changes a number, in the order the signature lists them."""

    def signature(self) -> str:
        """Every setting that changes a number, with the library's version (:meth:`settings`
        through :func:`~qascore.signature.make_signature`)."""
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
        """The corpus figures of one batch: ``aggregate(statistics(*batch))``, the same as
        :meth:`update` with any split of the batch, then :meth:`compute`."""
        return self.aggregate(self.statistics(*batch))

    # Streaming, torchmetrics-style: state is the running sum of statistics.
    _state: Statistics | None = None

    def update(self, *batch: Any) -> None:
        """Add a batch's statistics to the state that :meth:`compute` aggregates."""
        self.accumulate(self.statistics(*batch))

    def accumulate(self, stats: Statistics) -> None:
        """Add statistics computed elsewhere (e.g. from scores a caller also writes out) to the state."""
        self._state = stats if self._state is None else self._state + stats

    def compute(self) -> CorpusScore:
        """The corpus figures of every batch given to :meth:`update` since the last :meth:`reset`.

        :raises ValueError: before any :meth:`update`.
        """
        if self._state is None:
            raise ValueError(f"{type(self).__name__}.compute() before any update()")
        return self.aggregate(self._state)

    def reset(self) -> None:
        """Forget the batches given to :meth:`update`."""
        self._state = None

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.settings().items())
        return f"{type(self).__name__}({args})"


class ExactSum:
    """The exact sum of float64 values, kept as an integer count of ``2**-SCALE`` (every finite
    double is a whole number of those). Sums of any split of the values add to the same number,
    so a mean streamed over batches equals the one-shot mean bit for bit, whatever the chunk
    size; ``mean(n)`` is the correctly rounded mean. Non-finite values are summed apart as floats
    and, when present, are the result (NaN or an infinity).

    Example:

        >>> from qascore.metric import ExactSum
        >>> values = [0.1, 0.2, 0.3]
        >>> sum(values) / 3, ExactSum.of(values).mean(3)
        (0.20000000000000004, 0.2)
        >>> ExactSum.of(values[:1]) + ExactSum.of(values[1:]) == ExactSum.of(values)
        True

    :param units: the sum as a count of ``2**-SCALE`` (:meth:`of` makes it from values).
    :param special: the float sum of the non-finite values, or None when there are none.
    """

    __slots__ = ("units", "special")
    SCALE = 1074 + 53  # the smallest double is 2**-1074; a 53-bit integer mantissa adds 53 bits
    _BLOCK = 1 << 24  # bincount adds 27-bit halves of mantissas as doubles: exact below 2**53 a bin

    def __init__(self, units: int = 0, special: float | None = None) -> None:
        self.units, self.special = units, special

    @classmethod
    def of(cls, values) -> ExactSum:
        """The exact sum of ``values`` (any shape; read as float64)."""
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
    any split of a corpus into batches gives the same figures.

    Example:

        >>> import numpy as np
        >>> from qascore.metric import mean_statistics, mean_values
        >>> first = mean_statistics({"f": np.array([0.1, 0.2])}, 2)
        >>> mean_values(first + mean_statistics({"f": np.array([0.3])}, 1))
        {'f': 0.2}

    :param columns: per-example values by figure name.
    :param n: the number of examples.
    :returns: :class:`Statistics` of :class:`ExactSum` sums.
    """
    return Statistics({k: ExactSum.of(v) for k, v in columns.items()}, n)


def mean_values(statistics: Statistics) -> dict[str, float]:
    """The correctly rounded means of :func:`mean_statistics` sums (0.0 for an empty corpus, never NaN).

    Example:

        >>> from qascore.metric import mean_statistics, mean_values
        >>> mean_values(mean_statistics({"f": [0.5, 1.0]}, 2)), mean_values(mean_statistics({"f": []}, 0))
        ({'f': 0.75}, {'f': 0.0})

    :param statistics: summed :func:`mean_statistics`.
    :returns: the mean of every figure.
    """
    return {k: v.mean(statistics.n) for k, v in statistics.sums.items()}
