"""Reading one long line: :func:`qascore.io.iter_line_blocks` must be linear in the line's length.

A single line of 16 and 64 MB (and 256 MB with ``QASCORE_LONG_LINE_256=1``: it needs about 1 GB
of memory: the line's pieces, the joined bytes and the decoded text), written once under
``QASCORE_LONG_LINE_DIR`` (default ``/tmp/qascore_long_line``), never in the repository, is read
through the line reader, the whole line ending up as one ``str``. The reference is ``bytes.decode``
of the same file read whole (the least any reader does), so the ratio shows the reader's overhead.

The target: the reading time grows at most 5x per 4x of length (linear is 4x; a reader that joins
a growing line per block grows 16x). :func:`test_growth_per_4x` prints the growth measured in one
run; pytest-benchmark reports each size. Run:

    PYTHONPATH=src python -m pytest benchmarks/test_bench_long_line.py -s
"""
from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from qascore.io import iter_line_blocks

DATA = Path(os.environ.get("QASCORE_LONG_LINE_DIR", "/tmp/qascore_long_line"))
SIZES_MB = (16, 64, 256) if os.environ.get("QASCORE_LONG_LINE_256") else (16, 64)


def line_file(megabytes: int) -> Path:
    """One line of ``megabytes`` MB of words and a final newline (reused when already written)."""
    DATA.mkdir(parents=True, exist_ok=True)
    path = DATA / f"line_{megabytes}mb.txt"
    if not path.exists() or path.stat().st_size != megabytes << 20:
        word = "wörd ".encode()  # multi-byte UTF-8 too: the decode is not an ASCII shortcut
        body = word * ((megabytes << 20) // len(word))
        body += b"x" * ((megabytes << 20) - len(body) - 1) + b"\n"
        path.write_bytes(body)
    return path


def read_line(path: Path) -> int:
    return sum(len(line) for _, lines in iter_line_blocks(path) for line in lines)


def read_whole(path: Path) -> int:
    return len(path.read_bytes().decode("utf-8"))


@pytest.mark.parametrize("megabytes", SIZES_MB)
def test_iter_line_blocks(benchmark, megabytes):
    path = line_file(megabytes)
    benchmark.group = f"one line of {megabytes} MB"
    assert benchmark.pedantic(read_line, args=(path,), rounds=3, iterations=1) == read_whole(path) - 1


@pytest.mark.parametrize("megabytes", SIZES_MB)
def test_bytes_decode_reference(benchmark, megabytes):
    path = line_file(megabytes)
    benchmark.group = f"one line of {megabytes} MB"
    benchmark.pedantic(read_whole, args=(path,), rounds=3, iterations=1)


def _best(function, path: Path, rounds: int = 3) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        function(path)
        times.append(time.perf_counter() - start)
    return min(times)


def test_growth_per_4x():
    """The best of three reads per size, and the growth per 4x (printed; the target is <= 5x)."""
    seconds = {mb: _best(read_line, line_file(mb)) for mb in SIZES_MB}
    reference = {mb: _best(read_whole, line_file(mb)) for mb in SIZES_MB}
    for mb in SIZES_MB:
        print(f"\n{mb:>4} MB line: iter_line_blocks {seconds[mb]:.3f} s, read+decode {reference[mb]:.3f} s "
              f"({seconds[mb] / reference[mb]:.2f}x)")
    for small, large in zip(SIZES_MB, SIZES_MB[1:]):
        print(f"growth {small} -> {large} MB: {seconds[large] / seconds[small]:.2f}x (linear: 4x, target <= 5x)")
