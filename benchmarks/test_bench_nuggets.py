"""Nuggeteer assignment on a TREC-2005-sized task, side by side with a straightforward Python
implementation of the same algorithm (same tokens, n-grams, weights, null nugget and threshold).

Task: 75 questions x 11 nuggets, 1,300 responses per question (97,500 responses of 12-40 words
drawn from a Zipf vocabulary, some carrying nugget words), 3 judged responses per nugget and 20
unassigned ones per question (so the null nugget is active), bigrams, idf from the response pool
(``idf="runs"``).
Both sides start from the response texts and are timed on one core.

    PYTHONPATH=src python -m pytest benchmarks/test_bench_nuggets.py --benchmark-only
"""
from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from qascore.nuggets import analysis
from qascore.nuggets.formats import AnswerKey, Judgements, Nugget, Question, Run
from qascore.nuggets.nuggeteer import NULL_NUGGET, Nuggeteer

QUESTIONS, NUGGETS, RESPONSES = 75, 11, 1300
THRESHOLD, N = 0.3, 2


def make_task(seed: int = 0):
    rng = np.random.default_rng(seed)
    vocab = np.array([f"w{i}" for i in range(20000)])
    zipf = 1.0 / np.arange(1, len(vocab) + 1)
    zipf /= zipf.sum()
    stream = vocab[rng.choice(len(vocab), size=5_000_000, p=zipf)].tolist()  # one draw, sliced below
    position = 0

    def words(k):
        nonlocal position
        position = (position + k) % (len(stream) - 64)
        return stream[position - k:position] if position >= k else stream[:k]

    questions, judged, run = {}, Judgements(), Run("BENCH")
    judged_run = Run("JUDGED")
    judged.runs["JUDGED"] = judged_run
    for q in range(QUESTIONS):
        qid = f"{q + 1}.1"
        nuggets = [Nugget(qid, str(i + 1), " ".join(words(int(rng.integers(3, 9)))), "vital" if i % 3 == 0 else "okay")
                   for i in range(NUGGETS)]
        questions[qid] = Question(qid, f"target {q}", nuggets)
        assigned = {}
        for n in nuggets:
            for _ in range(3):
                text = " ".join(words(8) + n.description.split()[:3] + words(6))
                assigned[judged_run.add(qid, "DOC", text).item] = [n.nugget_id]
        for _ in range(20):
            judged_run.add(qid, "DOC", " ".join(words(15)))
        judged.assigned["JUDGED", qid] = assigned
        for _ in range(RESPONSES):
            body = words(int(rng.integers(12, 40)))
            if rng.random() < 0.3:
                body += nuggets[int(rng.integers(NUGGETS))].description.split()[: int(rng.integers(1, 5))]
            run.add(qid, "DOC", " ".join(body))
    return AnswerKey(questions), judged, run


@pytest.fixture(scope="module")
def task():
    return make_task()


# ---------------------------------------------------------------- the straightforward version


def python_assign(key: AnswerKey, judged: Judgements, run: Run, threshold: float, n: int):
    """Nuggeteer in plain Python: tuples of n-grams, dictionaries of weights, loops over responses."""
    terms = analysis._terms.__wrapped__  # the same tokens, uncached

    def grams(ts):
        return {tuple(ts[i:i + k]) for k in range(1, n + 1) for i in range(len(ts) - k + 1)}

    responses = [(qid, r) for qid, items in run.responses.items() for r in items]
    resp_terms = [terms(r.text, False, False) for _, r in responses]
    df = Counter()
    for ts in resp_terms:
        df.update(set(ts))
    n_docs = len(resp_terms)

    def idf(t):
        return math.log((n_docs + 1) / (df.get(t, 0) + 0.5))

    models = {}
    for q in key:
        descs = {x.nugget_id: [terms(x.description, False, False)] for x in q.nuggets}
        descs[NULL_NUGGET] = []
        for item in judged.runs["JUDGED"].responses[q.qid]:
            got = judged.nuggets_of("JUDGED", q.qid, item.item)
            for nid in got or [NULL_NUGGET]:
                descs[nid].append(terms(item.text, False, False))
        nugget_grams = {nid: set().union(*(grams(d) for d in ds)) if ds else set() for nid, ds in descs.items()}
        holders = Counter(e for g in nugget_grams.values() for e in g)
        group = len(descs)
        model = []
        for nid, ds in descs.items():
            weighted = []
            for d in ds:
                w = {e: sum(idf(t) for t in e) * (1.0 - (holders[e] - 1) / group) for e in grams(d)}
                weighted.append((w, sum(w.values())))
            model.append((nid, weighted))
        models[q.qid] = model
    assigned = {}
    for (qid, r), ts in zip(responses, resp_terms):
        rg = grams(ts)
        scores = {}
        for nid, weighted in models[qid]:
            best = 0.0
            for w, total in weighted:
                if total > 0:
                    best = max(best, sum(v for e, v in w.items() if e in rg) / total)
            scores[nid] = best
        null = scores.pop(NULL_NUGGET)
        assigned[qid, r.item] = sorted(nid for nid, s in scores.items() if s > 0 and s >= threshold and s > null)
    return assigned


def qascore_assign(key, judged, run, threshold, n):
    analysis._terms.cache_clear()  # no help from earlier rounds
    # idf from the response pool (idf="runs"), as the Python side computes it; the default shipped
    # table only skips the pool's document-frequency pass
    model = Nuggeteer(key, judgements=judged, n=n, threshold=threshold, idf="runs")
    table = model.recall_table([run], n_jobs=1)
    carried = table.carried(threshold)
    return table, carried, model


def test_same_assignments_as_the_python_version():
    key, judged, run = make_task(seed=1)
    small = Run("BENCH", {qid: items[:200] for qid, items in list(run.responses.items())[:5]})
    small_key = AnswerKey({qid: key[qid] for qid in small.responses})
    table, carried, model = qascore_assign(small_key, judged, small, THRESHOLD, N)
    ours = {(r.qid, r.item): sorted(g.nugget_id for g in model.guesses(table, i, carried)) for i, r in enumerate(table.responses)}
    assert ours == python_assign(small_key, judged, small, THRESHOLD, N)


def test_bench_nuggeteer_assign_trec2005(benchmark, task):
    benchmark.group = "nuggeteer-trec2005"
    benchmark.pedantic(qascore_assign, args=(*task, THRESHOLD, N), rounds=3, iterations=1)


def test_bench_python_reference_trec2005(benchmark, task):
    benchmark.group = "nuggeteer-trec2005"
    benchmark.pedantic(python_assign, args=(*task, THRESHOLD, N), rounds=1, iterations=1)
