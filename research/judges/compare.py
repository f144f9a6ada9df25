"""Every judge of qascore.judges on EVOUNA NQ's dev split, against the human labels.

The gold answers' '/'-separated aliases are passed as lists of references (the dev split is by
question: no judge was trained or calibrated on it). Per judge: agreement with the human labels,
the RMSE and Kendall tau-b between the judged and the true accuracies of the five QA systems, and
answers judged per second (wall clock, one call over the whole split), and the agreement on the
long, sentence-form answers alone (20 words or more: the LLM systems' answers).

    python research/judges/compare.py NQ.json [--judges containment,linear,...] [--threads N] [--json OUT]
"""
from __future__ import annotations

import argparse
import json
import sys
import time
import warnings

import numpy as np

from qascore.ava.data import load_evouna, split_by_question
from qascore.ava.evaluate import agreement, system_accuracies
from qascore.judges import load_judge

JUDGES = "containment,exact-match,token-f1,workbench,linear,containment>linear,network,default,cascade"
LONG_WORDS = 20  # an answer of this many words or more is a long, sentence-form one


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", help="EVOUNA NQ.json")
    parser.add_argument("--judges", default=JUDGES, help=f"comma-separated judge specs (default {JUDGES})")
    parser.add_argument("--threads", type=int, default=None, help="ONNX Runtime threads")
    parser.add_argument("--json", help="also write the rows as JSON to this path")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    _, dev = split_by_question(load_evouna(args.data, aliases=True))
    labels, systems = dev.require_labels(), dev.systems
    truth = system_accuracies(labels, systems)
    rows = []
    long = np.array([len(c.split()) >= LONG_WORDS for c in dev.candidates])
    for spec in args.judges.split(","):
        judge = load_judge(spec, n_threads=args.threads)
        start = time.perf_counter()
        verdicts = judge.judge(dev.questions, dev.references, dev.candidates)
        seconds = time.perf_counter() - start
        agree = agreement(system_accuracies(verdicts.labels.astype(np.int64), systems), truth)
        right = verdicts.labels == (labels == 1)
        rows.append({"judge": spec, "agreement": float(np.mean(right)), "agreement_long": float(np.mean(right[long])),
                     "rmse": agree.rmse, "kendall_tau_b": agree.kendall_tau, "answers_per_s": len(dev) / seconds,
                     "signature": judge.signature()})
    print(f"EVOUNA NQ dev, {len(dev)} judged answers ({int(long.sum())} of {LONG_WORDS}+ words), "
          f"{np.mean([len(r) for r in dev.references]):.2f} aliases per answer")
    print(f"| judge | agreement with humans | on {LONG_WORDS}+ word answers | RMSE of system accuracy | Kendall tau-b "
          "| answers/s |")
    print("|---|---|---|---|---|---|")
    for row in rows:
        print(f"| `{row['judge']}` | {row['agreement']:.4f} | {row['agreement_long']:.4f} | {row['rmse']:.4f} "
              f"| {row['kendall_tau_b']:.3f} | {row['answers_per_s']:,.0f} |")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump(rows, out, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
