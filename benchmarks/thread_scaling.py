"""Thread scaling of the batch kernels: wall time of batch ROUGE and corpus BLEU on 1 .. N threads.

The issue's target is >= 12x on 16 threads for batch ROUGE and BLEU; it needs a machine with that
many free cores (the GPU machine has 16). Work: the 9,754 MS MARCO dev (first-sentence candidate,
references) pairs repeated ``--repeat`` times (default 16, ~156k pairs, so 16 threads each get
thousands of pairs). Each figure is the best of ``--rounds`` wall times after one warm-up call;
speed-ups are against one thread of the same run. With ``--ava-rows N`` (default 0: skipped) it
also times the default AVA model on the first N EVOUNA-NQ triples (aliases as references) with
that many ONNX Runtime intra-op threads. Run (on an otherwise idle machine):

    PYTHONPATH=src OMP_WAIT_POLICY=passive python benchmarks/thread_scaling.py --threads 1 2 4 8 16 [--json OUT]
"""
from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from qascore.lexical.bleu import BLEU
from qascore.lexical.rouge import rouge

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
MSMARCO = SHARED / "mrc" / "msmarco"


def pairs(repeat: int) -> tuple[list[str], list[list[str]]]:
    def answers(name):
        return {r["query_id"]: r["answers"] for r in map(json.loads, (MSMARCO / name).read_text("utf-8").splitlines())}

    refs, cands = answers("dev_as_references.json"), answers("dev_first_sentence_as_candidates.json")
    queries = [q for q in refs if refs[q] and q in cands]
    return [cands[q][0] for q in queries] * repeat, [refs[q] for q in queries] * repeat


def best_wall(call, rounds: int) -> float:
    call()
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2, os.cpu_count() or 1])
    parser.add_argument("--repeat", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--ava-rows", type=int, default=0, help="also time AVA on this many EVOUNA-NQ triples")
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args()
    predictions, references = pairs(args.repeat)
    first = [r[0] for r in references]
    cases = {
        "rouge() rougeL": lambda n: rouge(predictions, first, ["rougeL"], n_jobs=n),
        "rouge() all four, stemmed": lambda n: rouge(predictions, first, ["rouge1", "rouge2", "rougeL", "rougeLsum"],
                                                     use_stemmer=True, n_jobs=n),
        "corpus BLEU (13a)": lambda n: BLEU(n_jobs=n).corpus_score(predictions, references),
    }
    if args.ava_rows:
        from qascore.ava.data import load_evouna
        from qascore.ava.metric import Ava

        triples = load_evouna(SHARED / "ava" / "evouna" / "NQ.json", aliases=True)
        rows = [column[:args.ava_rows] for column in (triples.questions, triples.references, triples.candidates)]
        judges: dict[int, Ava] = {}
        cases[f"AVA default, {args.ava_rows} triples"] = (
            lambda n: judges.setdefault(n, Ava(n_jobs=n)).score(*rows))
    results = {"pairs": len(predictions), "cpu_count": os.cpu_count(), "rounds": args.rounds, "cases": {}}
    print(f"{len(predictions):,} pairs, {os.cpu_count()} CPUs; wall seconds, best of {args.rounds}")
    print(f"| call | {' | '.join(f'{n} thr' for n in args.threads)} |")
    print(f"|---|{'---:|' * len(args.threads)}")
    for name, case in cases.items():
        seconds = {n: best_wall(lambda n=n, case=case: case(n), args.rounds) for n in args.threads}
        base = seconds[args.threads[0]]
        cells = " | ".join(f"{seconds[n]:.3f} s ({base / seconds[n]:.1f}x)" for n in args.threads)
        print(f"| {name} | {cells} |")
        results["cases"][name] = {str(n): s for n, s in seconds.items()}
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
