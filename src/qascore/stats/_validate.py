"""Input checks of qascore.stats, done once at the public boundary so kernels can trust arrays."""
from __future__ import annotations

import warnings
from numbers import Real

import numpy as np

from ..validate import check_choice, first_bad

__all__ = ["check_choice", "first_bad"]  # re-exported to the stats modules

NAN_POLICIES = ("propagate", "raise", "omit")
ALTERNATIVES = ("two-sided", "less", "greater")


_EXACT_FLOAT_INT = 2**53  # integers beyond this are not all representable as float64


def as_float_array(values, name: str, ndim: int, order_only: bool = False) -> np.ndarray:
    """A C-contiguous float64 array of exactly ndim dimensions; anything else is a TypeError/ValueError.

    ``None`` is an error naming where it sits (numpy would read it as NaN). With ``order_only``
    (rank statistics), integers beyond 2**53, which float64 would round into false ties, are
    replaced by their dense ranks: the same order and ties, exactly.
    """
    raw = values if isinstance(values, np.ndarray) else np.asarray(as_sequence(values, name))
    if raw.dtype == object:
        is_none = np.frompyfunc(lambda v: v is None, 1, 1)(raw).astype(bool)
        if is_none.any():
            raise TypeError(f"{name} contains None at {first_bad(raw, is_none)}")
    if order_only and raw.size and _has_inexact_integers(raw):
        _, dense = np.unique(raw, return_inverse=True)
        raw = dense.reshape(raw.shape)
    try:
        arr = np.asarray(raw, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        # the caller's own objects, not numpy's conversion of a mixed list to strings
        given = raw if isinstance(values, np.ndarray) or raw.dtype == object else np.asarray(values, dtype=object)
        flat = given.ravel()
        bad = np.fromiter((not isinstance(v, (Real, np.number, np.bool_)) for v in flat), bool, flat.size)
        if not bad.any() or given.shape != raw.shape:
            raise TypeError(f"{name} must hold real numbers: {exc}") from None
        raise TypeError(f"{name} must hold real numbers, got {type(flat[bad][0]).__name__} "
                        f"at {first_bad(given, bad.reshape(given.shape))}") from None
    if arr.ndim != ndim:
        shape = "a 1-D sequence" if ndim == 1 else "a 2-D array (rows x items)"
        raise ValueError(f"{name} must be {shape}, got an array of shape {arr.shape}")
    return np.ascontiguousarray(arr)


def as_sequence(values, name: str):
    """``values`` itself when numpy can read it as an array (a list, tuple, range, an array or
    anything with ``__array__``, such as a pandas Series); any other ordered iterable (a
    generator, ``map``, ``zip``, ...) as a list, read once. A set or a dict has no order to pair
    samples by, and a str is one value, not a sample: both are TypeErrors."""
    if isinstance(values, (list, tuple, range)) or hasattr(values, "__array__"):
        return values
    if isinstance(values, (str, bytes)):
        raise TypeError(f"{name} must be a sequence of numbers, not a single {type(values).__name__}")
    if isinstance(values, (set, frozenset, dict)):
        raise TypeError(f"{name} must be an ordered sequence of numbers, not a {type(values).__name__}")
    if hasattr(values, "__iter__"):
        return list(values)
    return values  # a scalar: numpy makes it a 0-d array, refused by the caller's shape check


def _has_inexact_integers(raw: np.ndarray) -> bool:
    if raw.dtype.kind in "iu":
        return bool(raw.max() > _EXACT_FLOAT_INT or raw.min() < -_EXACT_FLOAT_INT)
    if raw.dtype == object:  # Python ints too large for int64 (floats mixed in stay as they are)
        return all(isinstance(v, int) for v in raw.ravel()) and any(abs(v) > _EXACT_FLOAT_INT for v in raw.ravel())
    return False


def check_pair(x, y, names, nan_policy: str, finite: bool, ndim: int):
    """Validate paired samples (1-D, or 2-D with one sample per row) and apply nan_policy='raise'.

    finite=True (value statistics: Pearson, RMSE, R^2) rejects +-inf wherever it is; rank
    statistics accept +-inf as ordinary extreme values, as scipy does.
    """
    check_choice(nan_policy, NAN_POLICIES, "nan_policy")
    # rank statistics (finite=False) depend only on order: huge integers keep it exactly
    x = as_float_array(x, names[0], ndim, order_only=not finite)
    y = as_float_array(y, names[1], ndim, order_only=not finite)
    if x.shape != y.shape:
        what = "items" if ndim == 1 else "shape"
        sx = x.shape[0] if ndim == 1 else x.shape
        sy = y.shape[0] if ndim == 1 else y.shape
        raise ValueError(f"{names[0]} has {what} {sx} but {names[1]} has {what} {sy}; they must be paired")
    for arr, name in ((x, names[0]), (y, names[1])):
        nan = np.isnan(arr)
        if nan_policy == "raise" and nan.any():
            raise ValueError(f"{name} contains NaN at {first_bad(arr, nan)} (nan_policy='raise')")
        if finite:
            inf = np.isinf(arr)
            if inf.any():
                raise ValueError(f"{name} contains {arr[tuple(np.argwhere(inf)[0])]} at {first_bad(arr, inf)}; "
                                 "this statistic needs finite values")
    return x, y


def check_enough(n_valid: np.ndarray, what: str, omitted: np.ndarray | None = None) -> None:
    """Fewer than two usable pairs is an error that names the row and how many NaN pairs were dropped."""
    small = np.flatnonzero(n_valid < 2)
    if small.size:
        r = small[0]
        row = f" in row {r}" if n_valid.shape[0] > 1 else ""
        dropped = f" after omitting {omitted[r]} pairs with NaN" if omitted is not None and omitted[r] else ""
        raise ValueError(f"{what} needs at least 2 paired items{row}, got {n_valid[r]}{dropped}")


def warn_constant(rows: np.ndarray, what: str, batched: bool) -> None:
    """scipy's ConstantInputWarning for the rows whose result is NaN because an input is constant."""
    rows = np.flatnonzero(rows)
    if rows.size:
        # imported only when there is something to warn about: scipy.stats takes longer to import
        # than the rest of qascore.stats (scipy.special and Numba) together
        from scipy.stats import ConstantInputWarning

        where = f" (rows {rows[:10].tolist()}{'...' if rows.size > 10 else ''})" if batched else ""
        warnings.warn(ConstantInputWarning(
            f"{what}: an input is constant{where}; the correlation is not defined and is NaN"), stacklevel=4)


MAX_STREAM_ITEMS = 2**32 - 1  # the qascore stream draws 32-bit bounded indices (Lemire)


def check_stream_size(n: int, what: str) -> None:
    """The qascore resampling stream indexes below 2**32; a larger sample is an error, not a wrap."""
    if n > MAX_STREAM_ITEMS:
        raise ValueError(f"{what}: {n} items; the qascore resampling stream draws indices below 2**32 "
                         f"(at most {MAX_STREAM_ITEMS} items; use rng='scipy' where offered)")
