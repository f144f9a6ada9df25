"""``qascore rouge``'s read and write path against its scoring: the CLI's marginal rate over the
in-process :func:`qascore.lexical.rouge.rouge` on the same pairs (issue 36, class 6).

The pairs are those of ``test_bench_stream`` (the 9,754 MS MARCO dev candidate / reference pairs
repeated and perturbed), 0.5M and 2M of them as plain-line files under ``QASCORE_STREAM_DIR``
(default ``/tmp/qascore_stream``), never in the repository. Measured in one process, the sizes and
the two sides interleaved round by round (a shared machine's load then falls on both alike), each
figure the best of ``QASCORE_CLI_RATE_ROUNDS`` (default 3):

* the CLI, run in process through :func:`qascore.cli.main`:
  ``qascore rouge -p P -r R --types rougeL --per-example --jsonl -o OUT --no-progress``, reading
  the files, scoring, writing one JSON line per example and the aggregate;
* :func:`rouge` with ``["rougeL"]`` over the same pairs as lists already in memory.

The marginal rate between the sizes, ``(2M - 0.5M) / (t_2M - t_0.5M)``, leaves out start-up;
the ratio CLI / in-process is what the read and write path costs: 1.0 would be free, 0.5 means
reading and writing cost as much as scoring (the target is >= 0.5). Both sides use every core
(``n_jobs`` left at its default); on a machine whose other cores are busy the in-process side
loses its threads and the ratio rises, so compare ratios of one run. Run:

    PYTHONPATH=src python -m pytest benchmarks/test_bench_cli_rate.py -s
"""
from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from test_bench_stream import DATA, MSMARCO, write_pairs

SIZES = (500_000, 2_000_000)
ROUNDS = int(os.environ.get("QASCORE_CLI_RATE_ROUNDS", "3"))


def read_pairs(pred: Path, ref: Path) -> tuple[list[str], list[str]]:
    """The files' lines as the CLI reads them (split at LF only; the files end with one)."""
    def lines(path: Path) -> list[str]:
        return path.read_text(encoding="utf-8").removesuffix("\n").split("\n")
    return lines(pred), lines(ref)


def run_cli(pred: Path, ref: Path, out: Path) -> float:
    from qascore.cli import main

    start = time.perf_counter()
    code = main(["rouge", "-p", str(pred), "-r", str(ref), "--types", "rougeL", "--per-example", "--jsonl",
                 "-o", str(out), "--no-progress"])
    elapsed = time.perf_counter() - start
    assert code == 0
    return elapsed


def run_in_process(predictions: list[str], references: list[str]) -> float:
    from qascore.lexical.rouge import rouge

    start = time.perf_counter()
    rouge(predictions, references, ["rougeL"])
    return time.perf_counter() - start


@pytest.fixture(scope="module")
def files():
    if not MSMARCO.is_dir():
        pytest.skip(f"shared data not found at {MSMARCO}")
    return {n: write_pairs(n) for n in SIZES}


def marginal_rates(files) -> dict[str, float]:
    small, large = SIZES
    lists = {n: read_pairs(*files[n]) for n in SIZES}
    times: dict[tuple[str, int], list[float]] = {}
    for _ in range(ROUNDS):
        for n in SIZES:
            times.setdefault(("in-process", n), []).append(run_in_process(*lists[n]))
            times.setdefault(("cli", n), []).append(run_cli(*files[n], DATA / f"cli_rate_{n}.jsonl"))
    best = {key: min(values) for key, values in times.items()}
    rates = {side: (large - small) / (best[side, large] - best[side, small]) for side in ("cli", "in-process")}
    for n in SIZES:
        print(f"[cli-rate] {n:,} pairs: CLI {best['cli', n]:.2f} s, in-process rouge() {best['in-process', n]:.2f} s")
    print(f"[cli-rate] marginal rate: CLI {rates['cli']:,.0f} pairs/s, in-process {rates['in-process']:,.0f} "
          f"pairs/s, ratio {rates['cli'] / rates['in-process']:.2f} (target >= 0.5)")
    return rates


def test_cli_marginal_rate_ratio(files, benchmark):
    rates = benchmark.pedantic(marginal_rates, args=(files,), rounds=1, iterations=1)
    benchmark.group = "qascore rouge: CLI marginal rate / in-process rate"
    benchmark.extra_info.update(cli_pairs_per_s=round(rates["cli"]), in_process_pairs_per_s=round(rates["in-process"]),
                                ratio=round(rates["cli"] / rates["in-process"], 3))
