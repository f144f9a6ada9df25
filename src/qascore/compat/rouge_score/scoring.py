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
from ...prf import f_score

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
    """Harmonic mean of two numbers, 0.0 when their sum is not positive: :func:`qascore.prf.f_score`,
    whose default weight gives rouge-score's operations (``2 * P * R / (P + R)``) bit for bit."""
    return f_score(precision, recall)


__getattr__, __dir__ = lazy_exports(__name__, {"...stats.bootstrap": ("AggregateScore", "BootstrapAggregator")})
