"""Wall and CPU time of ``qascore bleu`` beside ``sacrebleu``, the same arguments, on WMT17 files.

Run: python benchmarks/bleu_cli_table.py [ROUNDS]      (default 3; needs sacrebleu installed)

Data: the WMT17 en-de reference and systems of sacrebleu's tests (``wmt17_en_de_systems.pkl.bz2``
from its source distribution, cached in ``~/.cache/qascore/`` by ``peer_suites/sacrebleu/fetch.py``),
written as plain files, 3,004 segments each. Each case runs the two commands in interleaved
rounds as fresh processes (start-up included, as a script meets it), checks that their stdout is
the same, and prints the median wall time and CPU time (user + system) of each and the ratios.
"""
from __future__ import annotations

import bz2
import importlib.util
import pickle
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SYSTEMS = ("newstest2017.KIT.4950.en-de", "newstest2017.FBK.4870.en-de", "newstest2017.online-A.0.en-de")
CASES = {
    "BLEU, one system": ["ref.txt", "-i", "KIT.txt"],
    "BLEU chrF TER, one system": ["ref.txt", "-i", "KIT.txt", "-m", "bleu", "chrf", "ter"],
    "BLEU chrF, 3 systems, --paired-bs (1,000 resamples)": ["ref.txt", "-i", "KIT.txt", "FBK.txt", "online-A.txt",
                                                            "-m", "bleu", "chrf", "--paired-bs", "-f", "text"],
}


def write_files(folder: Path) -> None:
    spec = importlib.util.spec_from_file_location("fetch_sacrebleu", ROOT / "peer_suites" / "sacrebleu" / "fetch.py")
    fetch = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fetch)
    path = fetch.cached_test_file("wmt17_en_de_systems.pkl.bz2")
    if path is None:
        sys.exit("sacrebleu's WMT17 systems are not available (no cache and no pip download of its sdist)")
    with bz2.open(path, "rb") as f:
        systems = dict(pickle.load(f))
    (reference,) = systems["reference"]
    (folder / "ref.txt").write_text("".join(f"{line}\n" for line in reference), encoding="utf-8")
    for name in SYSTEMS:
        short = name.split(".")[1]
        (folder / f"{short}.txt").write_text("".join(f"{line}\n" for line in systems[name]), encoding="utf-8")


def timed(command: list[str], folder: Path) -> tuple[float, float, bytes]:
    """(wall seconds, CPU seconds, stdout) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = subprocess.run(command, cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True).stdout
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, out


def main(rounds: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        write_files(folder)
        print("| arguments | sacrebleu wall (CPU) | qascore bleu wall (CPU) | ratio wall (CPU) |")
        print("|---|---|---|---|")
        for name, args in CASES.items():
            theirs, ours = [], []
            for _ in range(rounds):
                theirs.append(timed([sys.executable, "-m", "sacrebleu", "-q", *args], folder))
                ours.append(timed([sys.executable, "-m", "qascore", "bleu", "-q", *args], folder))
                assert theirs[-1][2] == ours[-1][2], f"{name}: the outputs differ"
            sw, sc = (statistics.median(run[i] for run in theirs) for i in (0, 1))
            qw, qc = (statistics.median(run[i] for run in ours) for i in (0, 1))
            print(f"| {name} | {sw:.2f} s ({sc:.2f} s) | {qw:.2f} s ({qc:.2f} s) | {sw / qw:.1f}x ({sc / qc:.1f}x) |",
                  flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
