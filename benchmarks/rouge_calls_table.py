"""The ROUGE calls users make, qascore beside rouge-score-rs 0.2.1 in one run, printed as a table.

Run: ``PYTHONPATH=src python benchmarks/rouge_calls_table.py [--rounds 5] [--pairs 2000]``
(needs ../shared/data/mrc/msmarco). One core, one thread each (``RAYON_NUM_THREADS=1`` for the
peer, ``n_jobs=1`` for qascore), CPU time of the process, best of ``--rounds`` rounds, the two
sides interleaved round by round so that both see the same load on a shared machine.

Rows (the table of the README and docs/rouge.md):

* single pair: ``RougeScorer(types, use_stemmer).score(t, p)`` called once per MS MARCO pair,
  a fresh pair each call, after one warm-up pass (token and stem caches warm);
* unseen text: the same calls on pairs whose every word is new to both scorers (each round
  prefixes every word with letters never used before, so the stemmer runs on each token; the
  suffixes that Porter looks at are the words' own);
* batch: ``rouge()`` / ``score_batch`` on all 9,754 pairs in one call.

Figures are microseconds per pair. The floor printed beside the single-pair rows is what
building the result alone costs from Python code (four ``Score`` tuples in a dict).
"""
from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

os.environ["RAYON_NUM_THREADS"] = "1"  # before the Rust extension builds its thread pool

from rouge_score_rs.rouge_scorer import RougeScorer as PeerScorer  # noqa: E402

from qascore.compat.rouge_score import RougeScorer, Score  # noqa: E402
from qascore.lexical.rouge import rouge  # noqa: E402

MSMARCO = Path(__file__).resolve().parents[2] / "shared" / "data" / "mrc" / "msmarco"
ALL_FOUR = ["rouge1", "rouge2", "rougeL", "rougeLsum"]


def msmarco_pairs():
    """(predictions, references): the 9,754 MS MARCO dev queries with a reference answer."""
    def answers(path):
        return {r["query_id"]: r["answers"] for r in map(json.loads, path.read_text(encoding="utf-8").splitlines())}

    refs = answers(MSMARCO / "dev_as_references.json")
    cands = answers(MSMARCO / "dev_first_sentence_as_candidates.json")
    queries = [q for q in refs if refs[q] and q in cands]
    return [cands[q][0] for q in queries], [refs[q][0] for q in queries]


def letters(k: int) -> str:
    """k in base 26 as lowercase letters, at least two (``aa``, ``ab``, ...)."""
    out = ""
    while True:
        k, digit = divmod(k, 26)
        out = chr(97 + digit) + out
        if k == 0 and len(out) >= 2:
            return out


def unseen(texts: list[str], tag: str) -> list[str]:
    """Every whitespace word prefixed with ``q`` + tag: tokens neither scorer has met."""
    return [" ".join("q" + tag + word for word in text.split()) for text in texts]


def per_pair_loop(scorer, targets, predictions):
    score = scorer.score

    def run():
        for t, p in zip(targets, predictions):
            score(t, p)

    return run


def result_floor(n: int):
    """Building n results of four Score tuples in a dict from Python code."""
    def run():
        for _ in range(n):
            {"rouge1": Score(0.5, 0.25, 0.3), "rouge2": Score(0.5, 0.25, 0.3),
             "rougeL": Score(0.5, 0.25, 0.3), "rougeLsum": Score(0.5, 0.25, 0.3)}

    return run


def best_cpu(functions, rounds, per_round=None):
    """Best-of-``rounds`` process CPU time of each function, called in turn within each round;
    ``per_round(r)`` (if given) returns the functions for round r (fresh inputs)."""
    best = [float("inf")] * len(functions)
    for r in range(rounds):
        fs = per_round(r) if per_round else functions
        for i, f in enumerate(fs):
            start = time.process_time()
            f()
            best[i] = min(best[i], time.process_time() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--pairs", type=int, default=2000, help="pairs per single-pair round")
    parser.add_argument("--only", default="", help="run only rows whose name contains this")
    args = parser.parse_args()
    predictions, references = msmarco_pairs()
    n = min(args.pairs, len(predictions))
    preds, refs = predictions[:n], references[:n]
    rows = []

    def add(name, ours, peer, count, floor=None):
        if args.only and args.only not in name:
            return
        t_ours, t_peer = best_cpu([ours, peer], args.rounds)
        rows.append((name, t_ours / count * 1e6, t_peer / count * 1e6, floor))

    floor = best_cpu([result_floor(n)], args.rounds)[0] / n * 1e6
    for types, label in ((["rougeL"], '["rougeL"]'), (ALL_FOUR, "all four types")):
        for stem in (False, True):
            ours, peer = RougeScorer(types, use_stemmer=stem), PeerScorer(types, use_stemmer=stem)
            per_pair_loop(ours, refs, preds)()  # warm the token caches
            per_pair_loop(peer, refs, preds)()
            name = f"score(t, p) {label}" + (" stemmed" if stem else "")
            add(name, per_pair_loop(ours, refs, preds), per_pair_loop(peer, refs, preds), n,
                floor if types is ALL_FOUR else None)

    name = 'score(t, p) ["rougeL"] stemmed, unseen text'
    if not args.only or args.only in name:
        ours, peer = RougeScorer(["rougeL"], use_stemmer=True), PeerScorer(["rougeL"], use_stemmer=True)
        m = min(n, 500)

        def fresh(r):
            # each round and side gets words never seen before (the same work for both)
            texts = [(unseen(refs[:m], letters(2 * r + side)), unseen(preds[:m], letters(2 * r + side)))
                     for side in (0, 1)]
            return [per_pair_loop(ours, *texts[0]), per_pair_loop(peer, *texts[1])]

        t_ours, t_peer = best_cpu([None, None], args.rounds, fresh)
        rows.append((name, t_ours / m * 1e6, t_peer / m * 1e6, None))

    peer_batch = PeerScorer(ALL_FOUR, use_stemmer=True)
    add(f"batch rouge(), all four stemmed, {len(predictions)} pairs",
        lambda: rouge(predictions, references, ALL_FOUR, use_stemmer=True, n_jobs=1),
        lambda: peer_batch.score_batch(references, predictions), len(predictions))
    ours_l, peer_l = RougeScorer(["rougeL"]), PeerScorer(["rougeL"])
    add(f"compat score_batch rougeL, {len(predictions)} pairs",
        lambda: ours_l.score_batch(references, predictions, n_jobs=1),
        lambda: peer_l.score_batch(references, predictions), len(predictions))

    head = f"call (one core, CPU time, best of {args.rounds}), us per pair"
    print(f"\n| {head:<58} | qascore | rouge-score-rs 0.2.1 | ratio |")
    print(f"|{'-' * 60}|--------:|---------------------:|------:|")
    for name, ours_us, peer_us, fl in rows:
        note = f" (result floor {fl:.2f} us)" if fl else ""
        print(f"| {name:<58} | {ours_us:7.2f} | {peer_us:20.2f} | {peer_us / ours_us:5.2f}x |{note}")


if __name__ == "__main__":
    main()
