"""Streaming ``qascore rouge``: peak memory and marginal throughput over 0.5M and 4M pairs.

The pairs are the 9,754 MS MARCO dev (first-sentence candidate, first reference) pairs repeated
and perturbed (repetition ``k`` rotates the candidate's words by ``k`` and appends ``k`` to the
reference, so no two repetitions score alike), written as plain-line files under a temporary
directory (``QASCORE_STREAM_DIR``, default ``/tmp/qascore_stream``), never in the repository.

Measured in one run:

* ``qascore rouge -p P -r R --per-example --jsonl -o OUT --no-progress`` in a fresh process per
  size: wall time and peak RSS (``ru_maxrss`` of that child, from ``os.wait4``);
* the in-memory :func:`qascore.lexical.rouge.rouge` over the same pairs (read into lists first,
  the reading not timed);
* the marginal rates between the sizes, ``(4M - 0.5M) / (t_4M - t_0.5M)``, so start-up and
  imports cancel out, and their ratio (CLI / in-memory; the target is >= 0.5), and the peak RSS
  ratio (4M / 0.5M; the target is <= 1.2, and under 200 MB).

Timings on a shared 2-vCPU machine are noisy: each figure is the best of ``QASCORE_STREAM_ROUNDS``
(default 1). ``QASCORE_STREAM_SRC`` points the CLI at another checkout's ``src`` (to measure
``main`` side by side). Run:

    PYTHONPATH=src python -m pytest benchmarks/test_bench_stream.py -s
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"
MSMARCO = SHARED / "mrc" / "msmarco"
SIZES = (500_000, 4_000_000)
DATA = Path(os.environ.get("QASCORE_STREAM_DIR", "/tmp/qascore_stream"))
ROUNDS = int(os.environ.get("QASCORE_STREAM_ROUNDS", "1"))
SRC = Path(os.environ.get("QASCORE_STREAM_SRC", Path(__file__).resolve().parents[1] / "src"))


def _answers(path: Path) -> dict:
    return {r["query_id"]: r["answers"] for r in map(json.loads, path.read_text(encoding="utf-8").splitlines())}


def base_pairs() -> list[tuple[str, str]]:
    """(candidate, first reference) of every MS MARCO dev query that has both, one line each."""
    refs = _answers(MSMARCO / "dev_as_references.json")
    cands = _answers(MSMARCO / "dev_first_sentence_as_candidates.json")
    flat = {q: (" ".join(cands[q][0].split()), " ".join(refs[q][0].split())) for q in refs
            if q in cands and cands[q] and refs[q]}
    return [flat[q] for q in sorted(flat)]


def write_pairs(n: int, directory: Path = DATA) -> tuple[Path, Path]:
    """``n`` perturbed pairs as two plain-line files (reused when already written)."""
    directory.mkdir(parents=True, exist_ok=True)
    pred, ref = directory / f"pred_{n}.txt", directory / f"ref_{n}.txt"
    if pred.exists() and ref.exists():
        return pred, ref
    pairs = base_pairs()
    with open(pred, "w", encoding="utf-8") as fp, open(ref, "w", encoding="utf-8") as fr:
        for i in range(n):
            k, (candidate, reference) = divmod(i, len(pairs))[0], pairs[i % len(pairs)]
            words = candidate.split()
            if k and words:
                r = k % len(words)
                candidate = " ".join(words[r:] + words[:r])
            fp.write(candidate + "\n")
            fr.write((f"{reference} {k}" if k else reference) + "\n")
    return pred, ref


def run_cli(pred: Path, ref: Path, out: Path, src: Path = SRC) -> tuple[float, float]:
    """(wall seconds, peak RSS in MB) of one ``qascore rouge`` process."""
    return run_command(["rouge", "-p", str(pred), "-r", str(ref), "--per-example", "--jsonl", "-o", str(out),
                        "--no-progress"], src)


def run_command(argv: list[str], src: Path = SRC) -> tuple[float, float]:
    """(wall seconds, peak RSS in MB) of one ``qascore ARGV`` process."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    cmd = [sys.executable, "-m", "qascore", *argv]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, cwd=str(src.parent))
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    assert proc.returncode == 0, f"{cmd} exited with {proc.returncode}"
    return wall, usage.ru_maxrss / 1024


def read_lines(path: Path) -> list[str]:
    with open(path, encoding="utf-8") as f:
        return f.read().splitlines()


@pytest.fixture(scope="module")
def files():
    if not MSMARCO.is_dir():
        pytest.skip(f"shared data not found at {MSMARCO}")
    return {n: write_pairs(n) for n in SIZES}


def test_stream_rouge_targets(files):
    from qascore.lexical.rouge import rouge

    cli, memory = {}, {}
    # Every CLI run before any list is read here: a forked child's peak RSS counts the pages it
    # shared with this process at the fork, so a big parent would inflate the figure.
    for n, (pred, ref) in files.items():
        runs = [run_cli(pred, ref, DATA / f"out_{n}.jsonl") for _ in range(ROUNDS)]
        cli[n] = (min(w for w, _ in runs), max(m for _, m in runs))
    for n, (pred, ref) in files.items():
        predictions, references = read_lines(pred), read_lines(ref)
        times = []
        for _ in range(ROUNDS):
            start = time.perf_counter()
            rouge(predictions, references)
            times.append(time.perf_counter() - start)
        memory[n] = min(times)
        del predictions, references
    small, large = SIZES
    cli_rate = (large - small) / (cli[large][0] - cli[small][0])
    mem_rate = (large - small) / (memory[large] - memory[small])
    for n in SIZES:
        print(f"[stream] {n} pairs: CLI {cli[n][0]:.2f} s, peak RSS {cli[n][1]:.0f} MB; in-memory rouge() "
              f"{memory[n]:.2f} s")
    print(f"[stream] marginal rate: CLI {cli_rate:,.0f} pairs/s, in-memory {mem_rate:,.0f} pairs/s, "
          f"ratio {cli_rate / mem_rate:.2f}; peak RSS ratio {cli[large][1] / cli[small][1]:.2f}")
