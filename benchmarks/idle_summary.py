"""One-shot summary of the headline ratios and thread scaling, for a quiet machine (no pytest overhead).

The README's "idle" column: run on 2 free cores as
``OMP_WAIT_POLICY=passive taskset -c 0,1 python benchmarks/idle_summary.py [MSMARCO_DIR]``
(MSMARCO_DIR defaults to ../shared/data/mrc/msmarco). Needs rouge-score-rs and bleuscore.
"""
import json
import os
import sys
import time

# rouge-score-rs on one thread, as the issue compares. Each Rust extension builds its own rayon pool
# on first use, reading this then: it is unset again before bleuscore (threaded, like our BLEU) runs.
os.environ["RAYON_NUM_THREADS"] = "1"
sys.path.insert(0, "src")
import bleuscore  # noqa: E402
import numpy as np  # noqa: E402
from rouge_score.rouge_scorer import RougeScorer as PyScorer  # noqa: E402
from rouge_score_rs.rouge_scorer import RougeScorer as Rs  # noqa: E402

from qascore import stats  # noqa: E402
from qascore.compat.rouge_score import RougeScorer  # noqa: E402
from qascore.lexical.bleu import BLEU  # noqa: E402
from qascore.lexical.rouge import rouge  # noqa: E402

DATA = sys.argv[1] if len(sys.argv) > 1 else os.path.join("..", "shared", "data", "mrc", "msmarco")


def load(p):
    return {r["query_id"]: r["answers"] for r in map(json.loads, open(p, encoding="utf-8"))}


refs = load(os.path.join(DATA, "dev_as_references.json"))
cands = load(os.path.join(DATA, "dev_first_sentence_as_candidates.json"))
qs = [q for q in refs if refs[q] and q in cands]
P = [cands[q][0] for q in qs]
R = [refs[q][0] for q in qs]
RL = [refs[q] for q in qs]
rng = np.random.default_rng(0)
words = np.array([f"word{i}" for i in range(2000)])
LP = [" ".join(rng.choice(words, 3000)) for _ in range(10)]
LR = [" ".join(rng.choice(words, 3000)) for _ in range(10)]


def best(f, n=15):
    f()
    ts = []
    for _ in range(n):
        t = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t)
    return min(ts) * 1e3, float(np.median(ts)) * 1e3


out = {}
rs = Rs(["rougeL"])
out["msmarco_rs_1t"] = best(lambda: rs.score_batch(R, P))
py = PyScorer(["rougeL"])
out["msmarco_rouge_score"] = best(lambda: [py.score(r, p) for r, p in zip(R, P)], 3)
for nj in (1, 2):
    out[f"msmarco_qascore_{nj}t"] = best(lambda nj=nj: rouge(P, R, ["rougeL"], n_jobs=nj))
out["long_rs"] = best(lambda: rs.score_batch(LR, LP))
for nj in (1, 2):
    out[f"long_qascore_{nj}t"] = best(lambda nj=nj: rouge(LP, LR, ["rougeL"], n_jobs=nj))
sc = RougeScorer(["rougeL"])
t0, p0 = R[0], P[0]
out["short_qascore_us"] = best(lambda: [sc.score(t0, p0) for _ in range(1000)], 7)
out["short_rs_us"] = best(lambda: [rs.score(t0, p0) for _ in range(1000)], 7)
del os.environ["RAYON_NUM_THREADS"]
out["bleuscore"] = best(lambda: bleuscore.compute(predictions=P, references=RL, max_order=4), 7)
for nj in (1, 2):
    m = BLEU(n_jobs=nj)
    out[f"corpus_bleu_{nj}t"] = best(lambda m=m: m.corpus_score(P, RL), 9)
a = rng.random(10000)
b = a + rng.normal(0, 0.1, 10000)
for nj in (1, 2):
    out[f"paired_boot_{nj}t"] = best(lambda nj=nj: stats.paired_bootstrap_means(a, b, n_resamples=1000, n_jobs=nj), 9)


def numpy_loop():
    g = np.random.default_rng(0)
    d = a - b
    n = len(d)
    return [d[g.integers(0, n, n)].mean() for _ in range(1000)]


out["paired_boot_numpy"] = best(numpy_loop, 5)
for k, v in out.items():
    print(f"{k:24s} min {v[0]:10.3f}  median {v[1]:10.3f}")
if os.environ.get("OUT"):
    json.dump(out, open(os.path.join(os.environ["OUT"], "idle.json"), "w"), indent=1)
