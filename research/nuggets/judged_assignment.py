"""Nugget assignment by each judge against the RAG24 assignments in the file (made by an LLM).

Per judge: agreement of 'support' with the file's support-or-partial_support, the share of nuggets
the judge supports (the file's share beside it), and wall-clock seconds.

    python research/nuggets/judged_assignment.py ASSIGNMENTS.jsonl [--judges containment,linear,default]
           [--every N]   # every N-th topic, for the slow judges
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from qascore.judges import load_judge
from qascore.nuggets.formats import read_rag_assignments
from qascore.nuggets.judged import judge_assignments


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("assignments")
    parser.add_argument("--judges", default="containment,workbench,token-f1,linear,default")
    parser.add_argument("--every", type=int, default=1)
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args(argv)
    topics = read_rag_assignments(args.assignments)[::args.every]
    given = np.array([n.assignment != "not_support" for t in topics for n in t.nuggets])
    print(f"{len(topics)} topics, {len(given)} nuggets; the file supports {given.mean():.3f}")
    print("| judge | agreement with the file | share supported | seconds |")
    print("|---|---|---|---|")
    for spec in args.judges.split(","):
        start = time.perf_counter()
        judged, _ = judge_assignments(topics, load_judge(spec, n_threads=args.threads))
        seconds = time.perf_counter() - start
        got = np.array([n.assignment == "support" for t in judged for n in t.nuggets])
        print(f"| `{spec}` | {np.mean(got == given):.4f} | {got.mean():.3f} | {seconds:.1f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
