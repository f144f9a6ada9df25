"""How a batch of hypotheses and their references is laid out for the kernels: one list of lines,
segment by segment (a hypothesis, then its references), with index arrays. Built from
per-hypothesis reference lists (qascore's API) or from sacrebleu's reference streams (the compat
layer), validated once here so the kernels can trust it."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import chain, repeat
from operator import is_not

import numpy as np

from ..validate import as_list, check_same_length, check_text_batch, plain_strs

__all__ = ["Segments", "segment_lines", "segments_from_streams", "single_segment_lines"]


@dataclass
class Segments:
    """Hypotheses with their references laid out in one list, segment by segment:
    ``lines[hyp_rows[i]]`` is hypothesis i and ``lines[ref_rows[groups[i]:groups[i + 1]]]`` its
    references. Built by :func:`segment_lines` or :func:`segments_from_streams`; the metrics'
    ``segment_statistics_of`` take it.

    Example:

        >>> from qascore.lexical.segments import segment_lines
        >>> seg = segment_lines(["a b", "c"], [["a b"], ["c", "d"]])
        >>> seg.lines, seg.hyp_rows.tolist(), seg.ref_rows.tolist(), seg.groups.tolist()
        (['a b', 'a b', 'c', 'c', 'd'], [0, 2], [1, 3, 4], [0, 1, 3])
        >>> [seg.lines[r] for r in seg.ref_rows[seg.groups[1]:seg.groups[2]]]  # hypothesis 1's references
        ['c', 'd']

    :param lines: every hypothesis followed by its references.
    :param hyp_rows: int64 index of each hypothesis in ``lines``.
    :param ref_rows: int64 index of each reference in ``lines``, segment by segment.
    :param groups: int64 bounds of each segment's references in ``ref_rows`` (one more than the
        hypotheses).
    """

    lines: list
    hyp_rows: np.ndarray
    ref_rows: np.ndarray
    groups: np.ndarray


def _first_non_string(lines: list) -> int | None:
    """Index of the first line that is not a str; str subclasses (numpy.str_, ...) become plain
    str in place, so the kernels (the 13a and chrF tokenisers take exact str) read them."""
    index = plain_strs(lines)  # one C-level pass of the types when all are plain str
    return None if index < 0 else index


def _interleave(hypotheses: list, references: list) -> tuple[list, np.ndarray]:
    """Each hypothesis followed by its references (lists or tuples), without a loop per line."""
    counts = np.fromiter(map(len, references), dtype=np.int64, count=len(references))
    if len(counts) and not counts.all():
        i = int(np.argmin(counts))
        raise ValueError(f"references[{i}] is empty: every hypothesis needs at least one reference")
    hyp_rows = np.arange(len(hypotheses), dtype=np.int64)
    hyp_rows[1:] += np.cumsum(counts[:-1])
    # This runs on one thread before the threaded kernels, so it bounds their scaling: C-level
    # iterators and object-array scatters, never a Python-level tuple per segment.
    refs = chain.from_iterable(references)
    if not len(counts) or counts.max() == 1:
        return list(chain.from_iterable(zip(hypotheses, refs))), hyp_rows
    lines = np.empty(len(hypotheses) + int(counts.sum()), dtype=object)
    is_ref = np.ones(len(lines), dtype=bool)
    is_ref[hyp_rows] = False
    lines[hyp_rows] = np.fromiter(hypotheses, dtype=object, count=len(hypotheses))
    lines[is_ref] = np.fromiter(refs, dtype=object, count=len(lines) - len(hypotheses))
    return lines.tolist(), hyp_rows


def _interleave_checked(hypotheses: list, references: list) -> tuple[list, np.ndarray]:
    """:func:`_interleave` for any iterables of references, naming a bad entry."""
    lines: list = []
    hyp_rows: list[int] = []
    for i, (hyp, refs) in enumerate(zip(hypotheses, references)):
        if isinstance(refs, str):
            raise TypeError(f"references[{i}] must be a list of strings, not a single string")
        start = len(lines)
        hyp_rows.append(start)
        lines.append(hyp)
        lines.extend(refs)
        if len(lines) == start + 1:
            raise ValueError(f"references[{i}] is empty: every hypothesis needs at least one reference")
    return lines, np.asarray(hyp_rows, dtype=np.int64)


def segment_lines(hypotheses, references) -> Segments:
    """Validate (hypotheses, per-hypothesis reference lists) once at the boundary and lay them out
    as :class:`Segments`. Every hypothesis needs at least one reference.

    Example:

        >>> from qascore.lexical.segments import segment_lines
        >>> segment_lines(["a b", "c"], [["a b"], ["c", "d"]]).groups.tolist()
        [0, 1, 3]
        >>> segment_lines(["a b"], [[]])
        Traceback (most recent call last):
        ValueError: references[0] is empty: every hypothesis needs at least one reference

    :param hypotheses: the system's texts (any ordered iterable of str).
    :param references: per hypothesis, a list (or tuple) of its reference texts.
    :returns: the layout, its ``lines`` plain str.
    :raises TypeError: for a single str in place of a batch, or a text that is not a str (naming it).
    :raises ValueError: for batches of different lengths or a hypothesis without references.
    """
    if isinstance(hypotheses, str):
        raise TypeError("hypotheses must be a sequence of strings, not a single string")
    hypotheses = as_list(hypotheses, "hypotheses")
    if isinstance(references, str):
        raise TypeError("references must be a sequence of reference lists, not a single string")
    references = as_list(references, "references", "a sequence of reference lists", ndim=2)
    check_same_length(hypotheses, references, "hypotheses", "references")
    if set(map(type, references)) <= {list, tuple}:
        lines, hyp_rows = _interleave(hypotheses, references)
    else:
        lines, hyp_rows = _interleave_checked(hypotheses, references)
    bad = _first_non_string(lines)
    if bad is not None:
        seg = int(np.searchsorted(hyp_rows, bad, "right")) - 1
        if bad == hyp_rows[seg]:
            raise TypeError(f"hypotheses[{seg}] must be str, got {type(lines[bad]).__name__}")
        check_text_batch(references[seg], f"references[{seg}]")
    hyp_rows = np.asarray(hyp_rows, dtype=np.int64)
    is_ref = np.ones(len(lines), dtype=bool)
    is_ref[hyp_rows] = False
    groups = np.zeros(len(hyp_rows) + 1, dtype=np.int64)
    np.cumsum(np.diff(np.append(hyp_rows, len(lines))) - 1, out=groups[1:])
    return Segments(lines, hyp_rows, np.flatnonzero(is_ref).astype(np.int64), groups)


def segments_from_streams(hypotheses: list, streams: list) -> tuple[Segments, int]:
    """sacrebleu's reference streams (``streams[j][i]``: the j-th reference of hypothesis i,
    ``None`` where it has fewer) laid out as :class:`Segments` without a Python loop per segment,
    and ``nrefs`` as sacrebleu counts it: the common number of references, or -1 when it varies.
    ``hypotheses`` and each stream are lists of the same length (the caller checks the shapes).

    Example:

        >>> from qascore.lexical.segments import segments_from_streams
        >>> seg, nrefs = segments_from_streams(["a", "b"], [["ra", "rb"], ["ra2", None]])
        >>> seg.lines, seg.groups.tolist(), nrefs
        (['a', 'ra', 'ra2', 'b', 'rb'], [0, 2, 3], -1)

    :param hypotheses: the system's texts, a list of str.
    :param streams: reference streams, each a list as long as ``hypotheses`` (None for a missing
        reference).
    :returns: (the layout, nrefs).
    :raises ValueError: for a segment without any reference.
    :raises TypeError: for a text that is not a str, naming its stream and line.
    """
    n, width = len(hypotheses), len(streams)
    present = np.ones((width + 1, n), dtype=bool)  # row 0: the hypotheses
    for j, stream in enumerate(streams, 1):
        if None in stream:
            present[j] = np.fromiter(map(is_not, stream, repeat(None)), dtype=bool, count=n)
    counts = present[1:].sum(axis=0)
    if n and not counts.all():
        raise ValueError(f"segment {int(np.argmin(counts))} has no reference (all of its streams are None)")
    pool = list(chain(hypotheses, *streams))  # column j of segment i is pool[j * n + i]
    segment, column = np.divmod(np.flatnonzero(present.T), width + 1)  # segment-major order
    lines = list(map(pool.__getitem__, (column * n + segment).tolist()))
    hyp_rows = np.flatnonzero(column == 0)
    bad = _first_non_string(lines)
    if bad is not None:
        i, j = int(segment[bad]), int(column[bad])
        what = f"hypotheses[{i}]" if j == 0 else f"reference stream {j - 1}, line {i}"
        raise TypeError(f"{what} must be str, got {type(lines[bad]).__name__}")
    groups = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=groups[1:])
    segments = Segments(lines, hyp_rows.astype(np.int64), np.flatnonzero(column).astype(np.int64), groups)
    if not n:
        return segments, width
    return segments, (int(counts[0]) if (counts == counts[0]).all() else -1)


def single_segment_lines(hypothesis, references) -> list | None:
    """``[hypothesis, *references]`` when the call is the plain one-segment case the sentence-level
    fast paths take (an exact ``str`` hypothesis, a non-empty list or tuple of exact ``str``
    references), else None (the caller then takes the checked, general road).

    Example:

        >>> from qascore.lexical.segments import single_segment_lines
        >>> single_segment_lines("a cat", ["the cat", "one cat"]), single_segment_lines("a cat", "the cat")
        (['a cat', 'the cat', 'one cat'], None)

    :param hypothesis: one hypothesis.
    :param references: its references.
    :returns: the segment's lines, or None for any other shape of arguments.
    """
    if type(hypothesis) is not str or type(references) not in (list, tuple) or not references:
        return None
    for ref in references:
        if type(ref) is not str:
            return None
    return [hypothesis, *references]


@lru_cache(maxsize=64)
def single_segment_rows(n_refs: int) -> Segments:
    """The index arrays of one segment laid out as ``[hypothesis, ref_1, ..., ref_n]`` (``lines``
    left empty), built once per reference count and read-only, so a sentence-level call does no
    array work of its own before the kernels."""
    hyp_rows = np.zeros(1, dtype=np.int64)
    ref_rows = np.arange(1, n_refs + 1, dtype=np.int64)
    groups = np.array([0, n_refs], dtype=np.int64)
    for array in (hyp_rows, ref_rows, groups):
        array.flags.writeable = False
    return Segments([], hyp_rows, ref_rows, groups)


def pack_token_lists(token_lists: list) -> tuple[list, list]:
    """Token ids (comparable within these lists only) and the length of each list, for the few
    token lists of one segment: a dict, no shared vocabulary to lock or grow."""
    vocab: dict[str, int] = {}
    ids = [vocab.setdefault(token, len(vocab)) for tokens in token_lists for token in tokens]
    return ids, list(map(len, token_lists))
