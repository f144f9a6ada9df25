"""EXAM on leaderboards whose true accuracies are known, built from EVOUNA-NQ's human labels.

From the dev split (by question: the AVA models never saw these questions), keep the questions
that have both a human-judged right and a human-judged wrong answer among the five QA systems.
Ten to a query, they form the exam bank (free-text questions, gold aliases as the gold answers).
Ten synthetic systems answer every question with one of its right answers with probability
0.50, 0.55, ..., 0.95 and with one of its wrong answers otherwise; a system's article for a query
is its ten answers, one paragraph each, shuffled. A system's true accuracy is the share of right
answers it wrote. EXAM then grades each article with a solver and a judge; the script prints, per
solver and judge, Kendall tau-b between EXAM and the true accuracies, and the largest and mean
absolute difference between a system's EXAM and its true accuracy.

    python research/exam/constructed_leaderboards.py NQ.json [--judges workbench,containment,...]
           [--solvers lexical,qa] [--free-text any-paragraph,paragraph,sentence] [--seed 0] [--json OUT]
"""
from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict

import numpy as np

from qascore.ava.data import load_evouna, split_by_question
from qascore.exam import LexicalSolver, evaluate
from qascore.exam.solvers.reader import ReaderSolver
from qascore.exam.records import Articles, ExamQuestion, QuestionBank
from qascore.io import dumps, open_output
from qascore.judges import load_judge
from qascore.stats import kendalltau

JUDGES = "workbench,containment,linear,containment>linear,default,cascade"
QUESTIONS_PER_QUERY = 10
ACCURACIES = np.round(np.linspace(0.5, 0.95, 10), 2)


def build(data_path: str, seed: int) -> tuple[QuestionBank, Articles, dict]:
    """The bank, the ten systems' articles and their true accuracies."""
    _, dev = split_by_question(load_evouna(data_path, aliases=True))
    labels = dev.require_labels()
    by_question: dict = defaultdict(lambda: {"right": [], "wrong": []})
    info = {}
    for i, qid in enumerate(dev.question_ids):
        info[qid] = (dev.questions[i], tuple(dev.references[i]))
        by_question[qid]["right" if labels[i] == 1 else "wrong"].append(dev.candidates[i])
    usable = sorted(q for q, a in by_question.items() if a["right"] and a["wrong"])
    rng = np.random.default_rng(seed)
    rng.shuffle(usable)
    n_queries = len(usable) // QUESTIONS_PER_QUERY
    bank, per_system = [], {f"sys{p:.2f}": {} for p in ACCURACIES}
    right_count = dict.fromkeys(per_system, 0)
    for k in range(n_queries):
        query = f"q{k:03d}"
        members = usable[k * QUESTIONS_PER_QUERY:(k + 1) * QUESTIONS_PER_QUERY]
        for qid in members:
            text, golds = info[qid]
            bank.append(ExamQuestion(query, str(qid), text, gold_answers=golds))
        for p, system in zip(ACCURACIES, per_system):
            paragraphs = []
            for qid in members:
                right = rng.random() < p
                pool = by_question[qid]["right" if right else "wrong"]
                paragraphs.append(pool[rng.integers(len(pool))])
                right_count[system] += right
            rng.shuffle(paragraphs)
            per_system[system][query] = paragraphs
    truth = {s: c / (n_queries * QUESTIONS_PER_QUERY) for s, c in right_count.items()}
    return QuestionBank(bank), Articles(per_system), truth


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", help="EVOUNA NQ.json")
    parser.add_argument("--judges", default=JUDGES)
    parser.add_argument("--solvers", default="lexical",
                        help="solvers to try: lexical, qa (the trained reader; needs qascore[onnx]) or both")
    parser.add_argument("--free-text", default="any-paragraph,paragraph,sentence",
                        help="the solvers' free-text answers to try (comma-separated): any-paragraph, paragraph, "
                             "sentence")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--json", help="also write the rows as JSON")
    args = parser.parse_args(argv)
    bank, articles, truth = build(args.data, args.seed)
    systems = sorted(truth)
    print(f"{len(bank.query_ids)} queries x {QUESTIONS_PER_QUERY} questions, {len(systems)} systems, "
          f"true accuracy {min(truth.values()):.3f} to {max(truth.values()):.3f}")
    print("| solver | judge | Kendall tau-b | max abs(EXAM - truth) | mean abs | seconds |")
    print("|---|---|---|---|---|---|")
    rows = []
    combos = [(v, f, s) for v in args.solvers.split(",") for f in args.free_text.split(",")
              for s in args.judges.split(",")]
    for solver_name, free_text, spec in combos:
        judge = load_judge(spec, n_threads=args.threads)
        start = time.perf_counter()
        solver = (ReaderSolver(free_text=free_text, n_threads=args.threads) if solver_name == "qa"
                  else LexicalSolver(free_text=free_text))
        result = evaluate(bank, articles, solver, judge=judge)
        seconds = time.perf_counter() - start
        exam = np.array([result.systems[s].exam for s in systems])
        true = np.array([truth[s] for s in systems])
        tau = kendalltau(exam, true, variant="b").statistic
        gap = np.abs(exam - true)
        rows.append({"solver": f"{solver_name}, free_text={free_text}", "judge": spec, "kendall_tau_b": float(tau),
                     "max_abs": float(gap.max()), "mean_abs": float(gap.mean()), "seconds": seconds,
                     "exam": dict(zip(systems, exam.tolist())), "truth": truth})
        print(f"| {solver_name}, {free_text} | `{spec}` | {tau:.3f} | {gap.max():.3f} | {gap.mean():.3f} "
              f"| {seconds:.1f} |", flush=True)
    if args.json:  # the library's writer: atomic, strict JSON
        with open_output(args.json) as out:
            out.write(dumps(rows) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
