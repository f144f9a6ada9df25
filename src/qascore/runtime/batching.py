"""Length-bucketed dynamic batching: sort rows by length, pad each batch to its own longest row,
run, and put the results back in the caller's order.

Padding to the batch's longest row instead of a fixed window is where most of the speed of
short inputs comes from; sorting makes neighbouring rows similar in length so little is padded.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np


def length_buckets(lengths: np.ndarray, *, batch_size: int, max_batch_tokens: int | None = None) -> list[np.ndarray]:
    """Index arrays of batches over rows sorted by length (stable), each at most ``batch_size`` rows
    and, when given, at most ``max_batch_tokens`` padded tokens."""
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    lengths = np.asarray(lengths, dtype=np.int64)
    order = np.argsort(lengths, kind="stable")
    batches: list[np.ndarray] = []
    start = 0
    n = len(order)
    while start < n:
        stop = min(n, start + batch_size)
        if max_batch_tokens is not None:
            # rows are sorted, so the last row of a batch sets its padded width
            while stop - start > 1 and lengths[order[stop - 1]] * (stop - start) > max_batch_tokens:
                stop -= 1
        batches.append(order[start:stop])
        start = stop
    return batches


def pad_rows(
    rows: Sequence[np.ndarray], index: np.ndarray, pad_id: int, width: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Rows ``index`` of ``rows`` as a right-padded int64 matrix and its attention mask; the
    width is the longest row's unless a (not smaller) ``width`` is given."""
    longest = max((len(rows[i]) for i in index), default=0)
    if width is None:
        width = longest
    elif width < longest:
        raise ValueError(f"width {width} is shorter than the longest row ({longest})")
    ids = np.full((len(index), width), pad_id, dtype=np.int64)
    mask = np.zeros((len(index), width), dtype=np.int64)
    for out_row, i in enumerate(index):
        row = rows[i]
        ids[out_row, : len(row)] = row
        mask[out_row, : len(row)] = 1
    return ids, mask


def run_bucketed(
    lengths: np.ndarray,
    run_batch: Callable[[np.ndarray], np.ndarray],
    *,
    batch_size: int,
    max_batch_tokens: int | None = None,
) -> np.ndarray:
    """Call ``run_batch(index)`` per length bucket; returns its row outputs in the original order.

    ``run_batch`` gets the original row indices of one batch and returns one output row per index.
    """
    n = len(lengths)
    out = None
    for index in length_buckets(lengths, batch_size=batch_size, max_batch_tokens=max_batch_tokens):
        result = np.asarray(run_batch(index))
        if result.shape[0] != len(index):
            raise RuntimeError(f"a batch of {len(index)} rows returned {result.shape[0]} outputs")
        if out is None:
            out = np.empty((n,) + result.shape[1:], dtype=result.dtype)
        out[index] = result
    if out is None:
        raise ValueError("run_bucketed needs at least one row to know the output shape")
    return out
