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
    and, when given, at most ``max_batch_tokens`` padded tokens.

    Example:

        >>> from qascore.runtime import length_buckets
        >>> [batch.tolist() for batch in length_buckets([5, 2, 9, 3], batch_size=2)]
        [[1, 3], [0, 2]]
        >>> [batch.tolist() for batch in length_buckets([5, 2, 9, 3], batch_size=4, max_batch_tokens=12)]
        [[1, 3], [0], [2]]

    :param lengths: the length of each row (any 1-D array-like of ints).
    :param batch_size: the most rows in a batch (>= 1).
    :param max_batch_tokens: the most padded tokens (rows x longest row) in a batch; a single row
        longer than it still makes a batch of its own.
    :returns: a list of int arrays of row indices, shortest rows first.
    :raises ValueError: for ``batch_size`` below 1.
    """
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
    width is the longest row's unless a (not smaller) ``width`` is given.

    Example:

        >>> import numpy as np
        >>> from qascore.runtime import pad_rows
        >>> ids, mask = pad_rows([np.array([7, 8, 9]), np.array([4])], np.array([1, 0]), pad_id=0)
        >>> ids.tolist(), mask.tolist()
        ([[4, 0, 0], [7, 8, 9]], [[1, 0, 0], [1, 1, 1]])

    :param rows: token id rows (1-D integer arrays).
    :param index: which rows, in the order of the matrix's rows.
    :param pad_id: the id that fills the padding.
    :param width: the matrix's width (None: the longest chosen row's).
    :returns: ``(ids, mask)``, two int64 matrices of ``len(index)`` rows.
    :raises ValueError: for a ``width`` shorter than the longest chosen row.
    """
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

    Example:

        >>> import numpy as np
        >>> from qascore.runtime import run_bucketed
        >>> run_bucketed(np.array([3, 1, 2]), lambda index: index * 10, batch_size=2).tolist()
        [0, 10, 20]

    :param lengths: the length of each row.
    :param run_batch: ``index -> outputs``, one output row per index of the batch.
    :param batch_size: the most rows in a batch, as in :func:`length_buckets`.
    :param max_batch_tokens: the most padded tokens in a batch, as in :func:`length_buckets`.
    :returns: the outputs of every row, in the rows' original order.
    :raises RuntimeError: when ``run_batch`` returns a number of rows other than its batch's.
    :raises ValueError: for no rows at all (the output's shape is unknown).
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
