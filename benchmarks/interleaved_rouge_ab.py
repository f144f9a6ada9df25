"""Interleaved A/B timing of qascore vs rouge-score-rs (1 thread each) on the cases of
test_bench_rouge.py: A, B, A, B, ... so both sides see the same load on a shared machine.

Run: PYTHONPATH=src python benchmarks/interleaved_rouge_ab.py (needs ../shared/data).
Not a pytest module (pytest-benchmark runs groups one after another, so one group can be hit
by a burst of load that the other escapes).
"""
import json
import os
import statistics
import time
from pathlib import Path

os.environ["RAYON_NUM_THREADS"] = "1"  # before the Rust extension builds its thread pool
import numpy as np  # noqa: E402
from rouge_score_rs.rouge_scorer import RougeScorer as Rs  # noqa: E402
from test_bench_rouge import joined_long_pairs, with_emoji  # noqa: E402

from qascore.compat.rouge_score import RougeScorer  # noqa: E402
from qascore.lexical.rouge import rouge  # noqa: E402

M = Path(__file__).resolve().parents[2] / "shared" / "data" / "mrc" / "msmarco"


def answers_by_query(p):
    return {r["query_id"]: r["answers"] for r in map(json.loads, p.read_text().splitlines())}


refs = answers_by_query(M / "dev_as_references.json")
c = answers_by_query(M / "dev_first_sentence_as_candidates.json")
q = [x for x in refs if refs[x] and x in c]
P = [c[x][0] for x in q]
R = [refs[x][0] for x in q]
rng = np.random.default_rng(0)
words = np.array([f"word{i}" for i in range(2000)])


def make():
    return " ".join(rng.choice(words, 3000))


LP = [make() for _ in range(10)]
LR = [make() for _ in range(10)]
NP, NR = joined_long_pairs(P, R)
rs = Rs(["rougeL"])
ours = RougeScorer(["rougeL"])
S = ("The quick brown fox jumps over the lazy dog", "The quick brown dog jumps on the log.")


def cpu_ticks():
    """Total and steal ticks of all CPUs (Linux /proc/stat; None elsewhere). Steal is time a
    virtual machine's CPUs were ready to run but the hypervisor ran something else."""
    try:
        fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except (OSError, ValueError):
        return None
    return sum(fields), fields[7]
def steal_note(before, after):
    if before is None or after is None or after[0] == before[0]:
        return ""
    return f" | steal {100 * (after[1] - before[1]) / (after[0] - before[0]):.1f}% of CPU time"
def ab(name, fa, fb, rounds, inner=1, clock=time.process_time):
    ta, tb = [], []
    ticks = cpu_ticks()
    for _ in range(rounds):
        for f, out in ((fa, ta), (fb, tb)):
            s = clock()
            for _ in range(inner):
                f()
            out.append((clock() - s) / inner)
    ma, mb = min(ta), min(tb)
    da, db = statistics.median(ta), statistics.median(tb)
    print(f"{name}: ours min {ma*1e3:.3f} ms med {da*1e3:.3f} | peer min {mb*1e3:.3f} med {db*1e3:.3f} | ratio min {mb/ma:.2f}x med {db/da:.2f}x"
          + steal_note(ticks, cpu_ticks()))
print(os.getloadavg())
ab("msmarco 1t cpu", lambda: rouge(P,R,["rougeL"],n_jobs=1), lambda: rs.score_batch(R,P), 40)
ab("msmarco 1t wall", lambda: rouge(P,R,["rougeL"],n_jobs=1), lambda: rs.score_batch(R,P), 40, clock=time.perf_counter)
ab("msmarco 2t vs 1t wall", lambda: rouge(P,R,["rougeL"],n_jobs=2), lambda: rouge(P,R,["rougeL"],n_jobs=1), 40, clock=time.perf_counter)
ab("long cpu", lambda: rouge(LP,LR,["rougeL"],n_jobs=1), lambda: rs.score_batch(LR,LP), 60)
ab("long wall", lambda: rouge(LP,LR,["rougeL"],n_jobs=1), lambda: rs.score_batch(LR,LP), 60, clock=time.perf_counter)
ab("long natural wall", lambda: rouge(NP,NR,["rougeL"],n_jobs=1), lambda: rs.score_batch(NR,NP), 60, clock=time.perf_counter)
EP, ER = with_emoji(NP, NR)  # UCS-4 storage
ab("long emoji wall", lambda: rouge(EP,ER,["rougeL"],n_jobs=1), lambda: rs.score_batch(ER,EP), 60, clock=time.perf_counter)
ab("short score cpu", lambda: ours.score(*S), lambda: rs.score(*S), 200, inner=200)
print(os.getloadavg())
