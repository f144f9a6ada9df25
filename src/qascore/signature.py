"""Reproducibility signatures: every result records the settings that produced it (as sacrebleu does)."""
from __future__ import annotations

import numpy as np

from . import __version__

__all__ = ["count_nrefs", "make_signature", "nrefs_of_sums", "reference_count_sums"]

def make_signature(metric: str, **settings) -> str:
    """``qascore:<metric>|key:value|...|version:X``, keys in the order given; bools as yes/no.

    Example:

        >>> from qascore.signature import make_signature
        >>> make_signature("exact", lowercase=True, strip=False)
        'qascore:exact|lowercase:yes|strip:no|version:...'

    :param metric: the metric's name.
    :param settings: every setting that changes a number, in the order the signature lists them.
    :returns: the signature string.
    """
    parts = [f"qascore:{metric}"]
    for key, value in settings.items():
        if isinstance(value, bool):
            value = "yes" if value else "no"
        parts.append(f"{key}:{value}")
    parts.append(f"version:{__version__}")
    return "|".join(parts)


def count_nrefs(references) -> str:
    """sacrebleu's ``nrefs`` of per-hypothesis reference lists: the common count, or ``var``.

    Example:

        >>> from qascore.signature import count_nrefs
        >>> count_nrefs([["a cat"], ["a dog"]]), count_nrefs([["a cat"], ["a dog", "the dog"]])
        ('1', 'var')

    :param references: per hypothesis, the list of its references.
    :returns: the number of references every hypothesis has, or ``"var"`` when they differ.
    """
    counts = set(map(len, references))
    return str(counts.pop()) if len(counts) == 1 else "var"


def reference_count_sums(references) -> dict[str, int]:
    """The sums that keep ``nrefs`` known once statistics of batches are added together: the
    reference counts and their squares (:func:`nrefs_of_sums` reads them back).

    Example:

        >>> from qascore.signature import reference_count_sums
        >>> reference_count_sums([["a cat"], ["a dog", "the dog"]])
        {'refs': 3, 'refs_squared': 5}

    :param references: per hypothesis, the list of its references.
    :returns: ``refs`` (the sum of the counts) and ``refs_squared`` (the sum of their squares).
    """
    counts = np.fromiter(map(len, references), dtype=np.int64, count=len(references))
    return {"refs": int(counts.sum()), "refs_squared": int((counts * counts).sum())}


def nrefs_of_sums(statistics) -> str:
    """``nrefs`` of summed statistics (a :class:`~qascore.metric.Statistics` holding
    :func:`reference_count_sums`): all counts are equal iff n * sum(k^2) == sum(k)^2.

    Example:

        >>> from qascore.metric import Statistics
        >>> from qascore.signature import nrefs_of_sums, reference_count_sums
        >>> def batch(references):
        ...     return Statistics(reference_count_sums(references), len(references))
        >>> nrefs_of_sums(batch([["a"]]) + batch([["b"], ["c"]]))
        '1'
        >>> nrefs_of_sums(batch([["a"]]) + batch([["b", "c"]]))
        'var'

    :param statistics: summed statistics whose ``sums`` hold ``refs`` and ``refs_squared``.
    :returns: the number of references every hypothesis has, or ``"var"`` when they differ.
    """
    refs, n = statistics.sums["refs"], statistics.n
    return str(refs // n) if n and n * statistics.sums["refs_squared"] == refs * refs else "var"
