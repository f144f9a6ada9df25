"""The block road of the streamed CLI: chunks cut from blocks equal chunks cut item by item,
read_ahead and WriteBehind keep order and hand errors to the caller."""
from __future__ import annotations

import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qascore import io


def _blocks(items: list, cuts: list[int]) -> list[list]:
    """``items`` cut at the (sorted, distinct) positions ``cuts``: non-empty lists."""
    bounds = [0, *sorted({c for c in cuts if 0 < c < len(items)}), len(items)]
    return [items[a:b] for a, b in zip(bounds, bounds[1:]) if b > a]


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 60), st.lists(st.integers(0, 60), max_size=12), st.lists(st.integers(0, 60), max_size=12),
       st.integers(1, 25))
def test_chunks_from_blocks_equal_chunks_from_items(n, cuts_a, cuts_b, size):
    a, b = list(range(n)), [f"r{i}" for i in range(n)]
    by_items = list(io.aligned_chunks([iter(a), iter(b)], ["a", "b"], size))
    by_blocks = list(io.aligned_chunks([iter(_blocks(a, cuts_a)), iter(_blocks(b, cuts_b))], ["a", "b"], size,
                                       blocks=True))
    assert by_blocks == by_items
    assert all(len(chunk[0]) == size for chunk in by_blocks[:-1])


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 40), st.integers(0, 40), st.lists(st.integers(0, 40), max_size=8), st.integers(1, 9))
def test_blocks_of_different_lengths_name_both_counts(n_a, n_b, cuts, size):
    if n_a == n_b:
        n_b += 1
    a, b = list(range(n_a)), list(range(n_b))
    with pytest.raises(ValueError) as items_error:
        list(io.aligned_chunks([iter(a), iter(b)], ["a", "b"], size))
    with pytest.raises(ValueError) as blocks_error:
        list(io.aligned_chunks([iter(_blocks(a, cuts)), iter(_blocks(b, cuts))], ["a", "b"], size, blocks=True))
    assert str(blocks_error.value) == str(items_error.value) == f"a has {n_a} examples but b has {n_b}"


def test_text_blocks_flatten_to_the_texts(tmp_path):
    lines = tmp_path / "p.txt"
    lines.write_text("".join(f"text {i}\n" for i in range(1000)), encoding="utf-8")
    jsonl = tmp_path / "p.jsonl"
    jsonl.write_text("".join(f'{{"prediction": "text {i}"}}\n' for i in range(1000)), encoding="utf-8")
    tsv = tmp_path / "p.tsv"
    tsv.write_text("".join(f"{i}\ttext {i}\n" for i in range(1000)), encoding="utf-8")
    for path, fmt, field in ((lines, "lines", None), (jsonl, "jsonl", "prediction"), (tsv, "tsv", "1")):
        blocks = list(io.iter_text_blocks(path, fmt, field))
        assert all(blocks) and [t for block in blocks for t in block] == [f"text {i}" for i in range(1000)]


def test_read_ahead_keeps_order_and_raises_where_the_input_failed():
    def source():
        yield from range(5)
        raise ValueError("bad record 6")

    got = []
    with pytest.raises(ValueError, match="bad record 6"), io.read_ahead(source()) as items:
        for item in items:
            got.append(item)
    assert got == [0, 1, 2, 3, 4]


def test_read_ahead_stops_its_thread_when_the_caller_leaves_early():
    closed = threading.Event()

    def source():
        try:
            yield from range(10**9)
        finally:
            closed.set()

    with io.read_ahead(source()) as items:
        assert next(items) == 0
    assert closed.wait(5)  # the source was closed in its thread, not left running


def test_write_behind_keeps_order_and_hands_on_the_first_error():
    done: list[int] = []

    def piece(i: int):
        def work():
            time.sleep(0.001)
            if i == 3:
                raise OSError(28, "No space left on device")
            done.append(i)
        return work

    with pytest.raises(OSError, match="No space"):
        with io.WriteBehind() as behind:
            for i in range(6):
                behind.submit(piece(i))
    assert done == [0, 1, 2]  # the error stopped the caller at the next piece
    with io.WriteBehind() as behind:
        for i in range(3):
            behind.submit(piece(i))
        behind.finish()
        assert done == [0, 1, 2, 0, 1, 2]
