"""``rouge_score.scoring``: the Score tuple, the scorer base class, F-measure and bootstrap aggregation.

``BootstrapAggregator`` and ``AggregateScore`` are :mod:`qascore.stats.bootstrap`'s (loaded on
first use: that module brings Numba, which a plain ``RougeScorer`` user need not pay for). For the
same numpy random state they give rouge-score's intervals to the last bit.
"""
from __future__ import annotations

import abc
import collections
from typing import TYPE_CHECKING

from ..._lazy import lazy_exports

if TYPE_CHECKING:
    from ...stats.bootstrap import AggregateScore, BootstrapAggregator

__all__ = ["AggregateScore", "BaseScorer", "BootstrapAggregator", "Score", "fmeasure"]

Score = collections.namedtuple("Score", ["precision", "recall", "fmeasure"])


class BaseScorer(abc.ABC):
    """A scorer: ``score(target, prediction)`` returns ``{score type: Score}``."""

    @abc.abstractmethod
    def score(self, target: str, prediction: str) -> dict[str, Score]:
        """Scores of ``prediction`` against ``target``."""


def fmeasure(precision, recall):
    """Harmonic mean of two numbers, 0.0 when their sum is not positive (rouge-score's bits:
    the product is formed as (2 * P) * R before the division)."""
    total = precision + recall
    if total > 0:
        return 2 * precision * recall / total
    return 0.0


__getattr__, __dir__ = lazy_exports(__name__, {"...stats.bootstrap": ("AggregateScore", "BootstrapAggregator")})
