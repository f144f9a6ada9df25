"""The one validation layer at the public boundary: every method checks its arguments here, once,
so kernels can trust what they are given.

Texts (:func:`as_text`, :func:`as_list`, :func:`plain_strs`, :func:`check_text_batch`,
:func:`check_texts`, :func:`check_encodable`), paired lengths
(:func:`check_same_length`), options (:func:`check_choice`, :func:`check_flag`, :func:`check_int`,
:func:`check_real`, :func:`check_weight`; ``n_jobs`` by :func:`resolve_n_jobs`, the thread policy's
own check, re-exported here) and numeric samples (:func:`as_real_array`). Every
message names the argument and, inside a batch, the row: ``predictions[3] must be str, got
NoneType``. A wrong type is a ``TypeError``, a wrong value a ``ValueError``. NaN is never a valid
option value; booleans are not accepted where a number is expected (``True`` is no order).

The statistics' samples are checked here too: :func:`as_float_array`, :func:`check_pair`
(paired samples, ``nan_policy``), :func:`check_enough`, :func:`check_stream_size`, and
:func:`warn_constant` (scipy's warning for a constant input).
"""
from __future__ import annotations

import math
import warnings
from numbers import Integral, Real

import numpy as np

from ._kernels.text_encode import first_non_str  # compiled: no Python loop over the batch
from ._parallel import resolve_n_jobs

__all__ = [
    "as_float_array", "as_list", "as_real_array", "as_text", "check_choice", "check_encodable", "check_flag",
    "check_int", "check_pair", "check_real", "check_same_length", "check_text_batch", "check_texts", "check_weight",
    "resolve_n_jobs",
]

# Integer options (n-gram orders, sizes) beyond this are not meaningful and would overflow a C int.
MAX_ORDER = 2**16


# -- texts --------------------------------------------------------------------------------------
# Texts are accepted as the peers accept them: any str, subclasses included (numpy.str_, what
# indexing a numpy string array gives), in any ordered iterable (list, tuple, numpy array, pandas
# Series, generator). A subclass is read by its characters: it becomes the plain str holding them
# (str.__str__ of the base type, never the subclass's own methods), so every kernel gets exact str.
def as_text(value, name: str) -> str:
    """One text as a plain ``str``; anything that is not a str is a TypeError naming ``name``.

    Example:

        >>> import numpy as np
        >>> from qascore.validate import as_text
        >>> text = as_text(np.str_("a cat"), "prediction")
        >>> text, type(text).__name__
        ('a cat', 'str')
        >>> as_text(None, "prediction")
        Traceback (most recent call last):
        TypeError: prediction must be str, got NoneType

    :param value: the text (a ``str`` or a subclass such as ``numpy.str_``).
    :param name: the argument's name in the message.
    :returns: a plain ``str`` of the same characters.
    :raises TypeError: when ``value`` is not a str.
    """
    if type(value) is str:
        return value
    if isinstance(value, str):
        return str.__str__(value)  # the base type's slot: a plain copy of the characters
    raise TypeError(f"{name} must be str, got {type(value).__name__}")


def plain_strs(items: list) -> int:
    """In place: every str subclass in the list ``items`` replaced by the plain str of its
    characters. Returns -1, or the index of the first item that is not a str at all."""
    if set(map(type, items)) <= {str}:  # the common case: one C-level pass, nothing to replace
        return -1
    for index, item in enumerate(items):
        if type(item) is not str:
            if not isinstance(item, str):
                return index
            items[index] = str.__str__(item)
    return -1


def as_list(values, name: str, what: str = "a sequence of strings", *, ndim: int = 1) -> list:
    """A batch argument read once into a new list: a numpy array by ``tolist()`` (a string array
    gives plain str; ``ndim=2`` also takes a 2-D array, as a list of row lists), any other
    iterable by ``list()``. A single str or bytes, a set or a dict (no order to pair rows by),
    None and non-iterables are TypeErrors naming ``name``.

    Example:

        >>> import numpy as np
        >>> from qascore.validate import as_list
        >>> as_list(np.array(["a", "b"]), "predictions"), as_list(iter(("a", "b")), "predictions")
        (['a', 'b'], ['a', 'b'])
        >>> as_list("a cat", "predictions")
        Traceback (most recent call last):
        TypeError: predictions must be a sequence of strings, not a single str

    :param values: the batch: a list, tuple, numpy array, pandas Series, generator, ...
    :param name: the argument's name in the message.
    :param what: what the argument must be, in the message.
    :param ndim: 2 to take a 2-D numpy array too (as a list of row lists).
    :returns: a new list of the items.
    :raises TypeError: for a single str or bytes, a set or dict, None, a non-iterable or an array
        of another number of dimensions.
    """
    if isinstance(values, np.ndarray):
        if not 1 <= values.ndim <= ndim:
            raise TypeError(f"{name} must be {what}, got a {values.ndim}-D array of shape {values.shape}")
        return values.tolist()
    if isinstance(values, (str, bytes)):
        raise TypeError(f"{name} must be {what}, not a single {type(values).__name__}")
    if isinstance(values, (set, frozenset, dict)):
        raise TypeError(f"{name} must be {what}, not a {type(values).__name__} (no order to pair rows by)")
    if values is None or not hasattr(values, "__iter__"):
        raise TypeError(f"{name} must be {what}, got {type(values).__name__}")
    return list(values)


def check_texts(texts, what: str = "texts") -> None:
    """Raise a TypeError naming the first element that is not a str (None included).

    Example:

        >>> check_texts(["a", "b"])
        >>> check_texts(["a", None], "predictions")
        Traceback (most recent call last):
        TypeError: predictions[1] must be str, got NoneType

    :param texts: an iterable of texts.
    :param what: the argument's name in the message.
    :raises TypeError: naming the first element that is not a ``str``.
    """
    if isinstance(texts, (list, tuple)):
        index = first_non_str(texts)
        if index >= 0:
            raise TypeError(f"{what}[{index}] must be str, got {type(texts[index]).__name__}")
        return
    if set(map(type, texts)) <= {str}:  # the common case, without a Python loop
        return
    for index, text in enumerate(texts):
        if not isinstance(text, str):
            raise TypeError(f"{what}[{index}] must be str, got {type(text).__name__}")


def check_encodable(texts, what: str = "texts") -> None:
    """Raise a ValueError naming the first string holding a lone surrogate (not valid Unicode, so
    no UTF-8 tokenizer can read it), with the code point and its position.

    Example:

        >>> from qascore.validate import check_encodable
        >>> check_encodable(["café", "naïve"])
        >>> check_encodable(["ok", "bad \\ud800"], "predictions")
        Traceback (most recent call last):
        ValueError: predictions[1] is not valid Unicode: lone surrogate U+D800 at position 4

    :param texts: an iterable of ``str``.
    :param what: the argument's name in the message.
    :raises ValueError: naming the first text holding a lone surrogate.
    """
    for index, text in enumerate(texts):
        if text.isascii():
            continue
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise ValueError(f"{what}[{index}] is not valid Unicode: lone surrogate U+{ord(text[exc.start]):04X} "
                             f"at position {exc.start}") from None


def check_text_batch(texts, name: str) -> list:
    """Validate a batch of strings once at the API boundary and return it as a new list of plain
    str (:func:`as_list`, :func:`plain_strs`).

    Example:

        >>> import numpy as np
        >>> from qascore.validate import check_text_batch
        >>> check_text_batch(("a", np.str_("b")), "predictions")
        ['a', 'b']
        >>> check_text_batch(["a", 1], "predictions")
        Traceback (most recent call last):
        TypeError: predictions[1] must be str, got int

    :param texts: the batch (any ordered iterable of ``str``).
    :param name: the argument's name in the message.
    :returns: a new list of plain ``str``.
    :raises TypeError: for a batch that :func:`as_list` refuses or an item that is not a str.
    """
    out = as_list(texts, name)
    index = plain_strs(out)
    if index >= 0:
        raise TypeError(f"{name}[{index}] must be str, got {type(out[index]).__name__}")
    return out


def check_same_length(a, b, name_a: str, name_b: str) -> None:
    """Raise a ValueError unless the paired batches ``a`` and ``b`` have one length.

    Example:

        >>> from qascore.validate import check_same_length
        >>> check_same_length(["a", "b"], ["c", "d"], "predictions", "references")
        >>> check_same_length(["a"], ["c", "d"], "predictions", "references")
        Traceback (most recent call last):
        ValueError: predictions has 1 items but references has 2

    :param a: the first batch.
    :param b: the second batch.
    :param name_a: ``a``'s name in the message.
    :param name_b: ``b``'s name in the message.
    :raises ValueError: when the lengths differ.
    """
    if len(a) != len(b):
        raise ValueError(f"{name_a} has {len(a)} items but {name_b} has {len(b)}")


# -- options ------------------------------------------------------------------------------------
def check_choice(value, allowed, name: str):
    """``value`` itself when it is one of ``allowed``; otherwise a ValueError listing them.

    Example:

        >>> from qascore.validate import check_choice
        >>> check_choice("best_f", ("best_f", "max_pr"), "multi_ref")
        'best_f'
        >>> check_choice("mean", ("best_f", "max_pr"), "multi_ref")
        Traceback (most recent call last):
        ValueError: multi_ref must be one of 'best_f', 'max_pr', got 'mean'

    :param value: the option's value.
    :param allowed: the values it may take.
    :param name: the option's name in the message.
    :returns: ``value``.
    :raises ValueError: when ``value`` is not one of ``allowed``.
    """
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}, got {value!r}")
    return value


def check_flag(value, name: str) -> bool:
    """A bool (numpy's too); a string such as ``"no"`` would silently read as True.

    Example:

        >>> import numpy as np
        >>> from qascore.validate import check_flag
        >>> check_flag(np.bool_(True), "use_stemmer")
        True
        >>> check_flag("no", "use_stemmer")
        Traceback (most recent call last):
        TypeError: use_stemmer must be a bool, got str

    :param value: the option's value.
    :param name: the option's name in the message.
    :returns: ``value`` as a Python bool.
    :raises TypeError: when ``value`` is not a bool.
    """
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be a bool, got {type(value).__name__}")
    return bool(value)


def check_int(value, name: str, *, low: int | None = None, high: int | None = None) -> int:
    """An int (numpy's too, not bool) within ``[low, high]``.

    Example:

        >>> import numpy as np
        >>> from qascore.validate import check_int
        >>> check_int(np.int64(4), "max_order", low=1)
        4
        >>> check_int(0, "max_order", low=1)
        Traceback (most recent call last):
        ValueError: max_order must be >= 1, got 0

    :param value: the option's value.
    :param name: the option's name in the message.
    :param low: the smallest value allowed (None: no bound).
    :param high: the largest value allowed (None: no bound).
    :returns: ``value`` as a Python int.
    :raises TypeError: when ``value`` is not an int (a bool or a float included).
    :raises ValueError: when it is outside ``[low, high]``.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Integral):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    value = int(value)
    if low is not None and value < low:
        raise ValueError(f"{name} must be >= {low}, got {value}")
    if high is not None and value > high:
        raise ValueError(f"{name} must be <= {high}, got {value}")
    return value


def _bounds(low, high, low_open: bool, high_open: bool) -> str:
    if low is not None and high is not None:
        return f"in {'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"
    if low is not None:
        return f"{'>' if low_open else '>='} {low:g}"
    if high is not None:
        return f"{'<' if high_open else '<='} {high:g}"
    return ""


def check_real(value, name: str, *, low: float | None = None, high: float | None = None,
               low_open: bool = False, high_open: bool = False):
    """A finite real number (not bool, not NaN, not +-inf) within the bounds; the message states
    the whole constraint: ``beta must be a finite number > 0, got nan``.

    Returns the value unchanged (a Python int stays an int, so exact integer arithmetic
    downstream is kept); a numpy scalar becomes the Python number.

    Example:

        >>> from qascore.validate import check_real
        >>> check_real(2, "beta", low=0, low_open=True)
        2
        >>> check_real(float("nan"), "beta", low=0, low_open=True)
        Traceback (most recent call last):
        ValueError: beta must be a finite number > 0, got nan

    :param value: the option's value.
    :param name: the option's name in the message.
    :param low: the lower bound (None: none).
    :param high: the upper bound (None: none).
    :param low_open: exclude ``low`` itself.
    :param high_open: exclude ``high`` itself.
    :returns: ``value`` (a numpy scalar as the Python number).
    :raises TypeError: when ``value`` is not a real number (a bool included).
    :raises ValueError: when it is NaN, infinite or out of bounds.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    value = value.item() if isinstance(value, np.generic) else value
    below = low is not None and (value <= low if low_open else value < low)
    above = high is not None and (value >= high if high_open else value > high)
    if not math.isfinite(value) or below or above:
        bounds = _bounds(low, high, low_open, high_open)
        raise ValueError(f"{name} must be a finite number{' ' + bounds if bounds else ''}, got {value!r}")
    return value


def check_weight(value, name: str, *, allow_zero: bool = False):
    """An F-measure weight (beta, gamma): finite, > 0 (>= 0 with ``allow_zero``), and small enough
    that its square is a finite double (a larger one would overflow to inf and give NaN scores).

    Example:

        >>> from qascore.validate import check_weight
        >>> check_weight(1.2, "gamma"), check_weight(0, "beta", allow_zero=True)
        (1.2, 0)
        >>> check_weight(1e200, "gamma")
        Traceback (most recent call last):
        ValueError: gamma is too large: gamma ** 2 must be a finite float, got gamma = 1e+200

    :param value: the weight.
    :param name: the option's name in the message.
    :param allow_zero: accept 0.
    :returns: ``value``, as :func:`check_real` returns it.
    :raises TypeError: when ``value`` is not a real number.
    :raises ValueError: when it is not finite, not positive (negative with ``allow_zero``) or too large.
    """
    value = check_real(value, name, low=0, low_open=not allow_zero)
    try:
        square = float(value ** 2)
    except OverflowError:
        square = math.inf
    if not math.isfinite(square):
        raise ValueError(f"{name} is too large: {name} ** 2 must be a finite float, got {name} = {value!r}")
    return value


# -- numeric samples ----------------------------------------------------------------------------
def first_bad(arr: np.ndarray, bad: np.ndarray) -> str:
    """Where the first flagged value sits: 'index 3' or 'row 2, index 5'."""
    where = np.argwhere(bad)[0]
    if arr.ndim == 1:
        return f"index {where[0]}"
    return f"row {where[0]}, index {where[1]}"


def _not_real(v) -> bool:
    return not isinstance(v, (Real, np.bool_))


def as_real_array(values, name: str, *, low: float | None = None, high: float | None = None,
                  integer: bool = False, allow_nan: bool = False) -> np.ndarray:
    """A 1-D float64 array of ``values``; ``None``, a non-number, NaN (unless ``allow_nan``), a
    value outside ``[low, high]`` or (``integer``) a non-integer is an error naming the index.

    Example:

        >>> from qascore.validate import as_real_array
        >>> as_real_array([1, 0.5], "labels", low=0, high=1).tolist()
        [1.0, 0.5]
        >>> as_real_array([1, 2], "labels", low=0, high=1)
        Traceback (most recent call last):
        ValueError: labels[1] must be a number in [0, 1], got 2.0

    :param values: a 1-D sequence of numbers.
    :param name: the argument's name in the message.
    :param low: the smallest value allowed (None: no bound).
    :param high: the largest value allowed (None: no bound).
    :param integer: every value must be a whole number.
    :param allow_nan: accept NaN.
    :returns: a C-contiguous float64 array.
    :raises TypeError: for a str, None or a value that is not a number.
    :raises ValueError: for another shape, NaN (unless allowed) or a value out of bounds.
    """
    if isinstance(values, (str, bytes)):
        raise TypeError(f"{name} must be a sequence of numbers, not a single {type(values).__name__}")
    raw = values if isinstance(values, np.ndarray) else np.asarray(list(values), dtype=object)
    if raw.dtype == object:
        if raw.ndim != 1:
            raise ValueError(f"{name} must be a 1-D sequence, got an array of shape {raw.shape}")
        bad = np.fromiter((v is None or _not_real(v) for v in raw), dtype=bool, count=raw.size)
        if bad.any():
            v = raw[bad][0]
            raise TypeError(f"{name}[{int(np.argmax(bad))}] must be a number, got {type(v).__name__}")
    try:
        arr = np.asarray(raw, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must hold real numbers: {exc}") from None
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D sequence, got an array of shape {arr.shape}")
    nan = np.isnan(arr)
    if nan.any() and not allow_nan:
        raise ValueError(f"{name}[{int(np.argmax(nan))}] is NaN")
    outside = ~nan & (((arr < low) if low is not None else False) | ((arr > high) if high is not None else False))
    if integer:
        outside |= ~nan & (arr != np.floor(arr))
    if np.any(outside):
        i = int(np.argmax(outside))
        what = "an integer" if integer else "a number"
        span = f" in [{low:g}, {high:g}]" if low is not None and high is not None else ""
        raise ValueError(f"{name}[{i}] must be {what}{span}, got {float(arr[i])!r}")
    return np.ascontiguousarray(arr)


# -- paired samples and resampling (qascore.stats) ---------------------------------------------
NAN_POLICIES = ("propagate", "raise", "omit")
ALTERNATIVES = ("two-sided", "less", "greater")
_EXACT_FLOAT_INT = 2**53  # integers beyond this are not all representable as float64


def as_float_array(values, name: str, ndim: int, order_only: bool = False) -> np.ndarray:
    """A writeable C-contiguous float64 array of exactly ndim dimensions; anything else is a TypeError/ValueError.

    ``None`` is an error naming where it sits (numpy would read it as NaN). With ``order_only``
    (rank statistics), integers beyond 2**53, which float64 would round into false ties, are
    replaced by their dense ranks: the same order and ties, exactly.

    Example:

        >>> from qascore.validate import as_float_array
        >>> as_float_array([[1, 2], [3, 4]], "scores", 2).tolist()
        [[1.0, 2.0], [3.0, 4.0]]
        >>> as_float_array([1, None], "x", 1)
        Traceback (most recent call last):
        TypeError: x contains None at index 1

    :param values: the sample (a sequence, an array, a pandas Series, a generator).
    :param name: the argument's name in the message.
    :param ndim: the number of dimensions it must have (1, or 2 for one sample per row).
    :param order_only: only the order matters (rank statistics).
    :returns: a C-contiguous float64 array.
    :raises TypeError: for None or a value that is not a number.
    :raises ValueError: for another number of dimensions.
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
    arr = np.ascontiguousarray(arr)
    # A read-only array (a float pandas Series' values under copy-on-write) is another array type
    # to Numba: the statistics' kernels would compile a second time for it.
    return arr if arr.flags.writeable else arr.copy()


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

    Example:

        >>> from qascore.validate import check_pair
        >>> x, y = check_pair([1, 2, 3], [3, 2, 1], ("x", "y"), "propagate", True, 1)
        >>> x.tolist(), y.tolist()
        ([1.0, 2.0, 3.0], [3.0, 2.0, 1.0])
        >>> check_pair([1, 2], [1, 2, 3], ("x", "y"), "propagate", True, 1)
        Traceback (most recent call last):
        ValueError: x has items 2 but y has items 3; they must be paired

    :param x: the first sample.
    :param y: the second sample, paired with ``x``.
    :param names: the two samples' names in messages.
    :param nan_policy: ``propagate``, ``raise`` or ``omit`` (scipy's).
    :param finite: reject infinities (value statistics).
    :param ndim: 1, or 2 for one sample per row.
    :returns: ``x`` and ``y`` as float64 arrays (:func:`as_float_array`).
    :raises TypeError: for values that are not numbers.
    :raises ValueError: for unpaired shapes, NaN under ``nan_policy="raise"``, or an infinity with ``finite``.
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
