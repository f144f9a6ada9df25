"""Rows of AVA triples: one row per (triple, reference), and the per-triple mean over its rows.

Every AVA model scores single-reference rows; a triple with several references gets the mean of
its rows' probabilities (the paper's rule). The helpers here are shared by the linear model, the
ONNX models and training, and import nothing else of the package.
"""
from __future__ import annotations

import numpy as np


def check_lengths(questions, references, candidates) -> int:
    """The number of triples; a ValueError naming the three lengths when they differ."""
    n = len(questions)
    if not (len(references) == n == len(candidates)):
        raise ValueError(f"questions, references and candidates differ in length "
                         f"({n}, {len(references)}, {len(candidates)})")
    return n


def expand_rows(questions, references, candidates) -> tuple[list, list, list, np.ndarray]:
    """One row per (triple, reference): q, r, t lists and the owning triple index of each row.

    ``references[i]`` is a string or a non-empty list of strings; an empty list is a ValueError,
    anything else (None included) a TypeError naming the row.
    """
    check_lengths(questions, references, candidates)
    q, r, t, owner = [], [], [], []
    for i, refs in enumerate(references):
        refs = [refs] if isinstance(refs, str) else refs
        if not isinstance(refs, (list, tuple)) or not all(isinstance(ref, str) for ref in refs):
            raise TypeError(f"references[{i}] must be a str or a list of str, got {type(refs).__name__}"
                            + (f" holding {', '.join(sorted({type(x).__name__ for x in refs}))}"
                               if isinstance(refs, (list, tuple)) else ""))
        if len(refs) == 0:
            raise ValueError(f"references[{i}] is empty: every triple needs at least one reference")
        for ref in refs:
            q.append(questions[i])
            r.append(ref)
            t.append(candidates[i])
            owner.append(i)
    return q, r, t, np.asarray(owner, dtype=np.int64)


def mean_by_owner(values: np.ndarray, owner: np.ndarray, n: int) -> np.ndarray:
    """Per triple, the mean of its rows' ``values`` (0 for a triple without rows)."""
    return np.bincount(owner, weights=values, minlength=n) / np.maximum(np.bincount(owner, minlength=n), 1)


def sigmoid(x: np.ndarray) -> np.ndarray:
    """The logistic function in float64."""
    return 1.0 / (1.0 + np.exp(-np.asarray(x, dtype=np.float64)))
