"""``rouge_score.scoring``: the Score tuple, the scorer base class, F-measure and bootstrap aggregation.

``BootstrapAggregator`` and ``AggregateScore`` are :mod:`qascore.stats.bootstrap`'s (loaded on
first use: that module brings Numba, which a plain ``RougeScorer`` user need not pay for). For the
same numpy random state they give rouge-score's intervals to the last bit.
"""
from __future__ import annotations

import abc
import collections
from typing import TYPE_CHECKING

from ...lazy import lazy_exports
from ...prf import f_score

if TYPE_CHECKING:
    from ...stats.bootstrap import AggregateScore, BootstrapAggregator

__all__ = ["AggregateScore", "BaseScorer", "BootstrapAggregator", "Score", "fmeasure"]

Score = collections.namedtuple("Score", ["precision", "recall", "fmeasure"])
Score.__doc__ = """rouge-score's ``Score(precision, recall, fmeasure)`` named tuple, one per ROUGE type.

    Example:

        >>> from qascore.compat.rouge_score.scoring import Score
        >>> score = Score(precision=1.0, recall=0.5, fmeasure=0.6666666666666666)
        >>> score.fmeasure, tuple(score)
        (0.6666666666666666, (1.0, 0.5, 0.6666666666666666))
    """


class BaseScorer(abc.ABC):
    """A scorer: ``score(target, prediction)`` returns ``{score type: Score}``."""

    @abc.abstractmethod
    def score(self, target: str, prediction: str) -> dict[str, Score]:
        """Scores of ``prediction`` against ``target``."""


def fmeasure(precision, recall):
    """Harmonic mean of two numbers, 0.0 when their sum is not positive: :func:`qascore.prf.f_score`,
    whose default weight gives rouge-score's operations (``2 * P * R / (P + R)``) bit for bit.

    Example:

        >>> from qascore.compat.rouge_score import scoring
        >>> scoring.fmeasure(0.5, 0.25), scoring.fmeasure(0, 0)
        (0.3333333333333333, 0.0)

    :param precision: a precision.
    :param recall: a recall.
    :returns: the F1 of the two.
    """
    return f_score(precision, recall)


__getattr__, __dir__ = lazy_exports(__name__, {"...stats.bootstrap": ("AggregateScore", "BootstrapAggregator")})
