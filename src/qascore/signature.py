"""Reproducibility signatures: every result records the settings that produced it (as sacrebleu does)."""
from __future__ import annotations

import numpy as np

from . import __version__


def make_signature(metric: str, **settings) -> str:
    """``qascore:<metric>|key:value|...|version:X``, keys in the order given; bools as yes/no."""
    parts = [f"qascore:{metric}"]
    for key, value in settings.items():
        if isinstance(value, bool):
            value = "yes" if value else "no"
        parts.append(f"{key}:{value}")
    parts.append(f"version:{__version__}")
    return "|".join(parts)


def count_nrefs(references) -> str:
    """sacrebleu's ``nrefs`` of per-hypothesis reference lists: the common count, or ``var``."""
    counts = set(map(len, references))
    return str(counts.pop()) if len(counts) == 1 else "var"


def reference_count_sums(references) -> dict[str, int]:
    """The sums that keep ``nrefs`` known once statistics of batches are added together."""
    counts = np.fromiter(map(len, references), dtype=np.int64, count=len(references))
    return {"refs": int(counts.sum()), "refs_squared": int((counts * counts).sum())}


def nrefs_of_sums(statistics) -> str:
    """``nrefs`` of summed statistics (a :class:`~qascore.metric.Statistics` holding
    :func:`reference_count_sums`): all counts are equal iff n * sum(k^2) == sum(k)^2."""
    refs, n = statistics.sums["refs"], statistics.n
    return str(refs // n) if n and n * statistics.sums["refs_squared"] == refs * refs else "var"
