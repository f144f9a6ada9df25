"""The EXAM part of ``qascore demo``: three small systems on bundled questions, and the paper's
published CAR Y3 leaderboards (its Table 4, bundled as data) correlated the way EXAM leaderboards are."""
from __future__ import annotations

from .articles import read_original_jsonl
from .baseline import rouge1_baseline
from .leaderboard import (correlation_report, exam_leaderboard, leaderboard_from_means, read_leaderboard,
                          read_leaderboard_table)
from .records import Articles
from .questions import read_simple_jsonl
from .scoring import evaluate
from .solvers.lexical import LexicalSolver


def run_demo(data_dir, out) -> None:
    d = data_dir / "exam"
    print("== EXAM: answerability of exam questions from system articles (lexical solver)", file=out)
    bank = read_simple_jsonl(d / "questions.jsonl")
    systems = Articles()
    for name in ("good-system", "partial-system", "off-topic-system"):
        systems.merge(read_original_jsonl(d / "systems" / f"{name}.jsonl"))
    gold = read_original_jsonl(d / "gold.jsonl", system="gold")
    result = evaluate(bank, systems, LexicalSolver(), gold=gold)
    print(result.table(), file=out)
    print(result.signature, file=out)
    official = read_leaderboard(d / "official.txt", name="official")
    print(correlation_report(exam_leaderboard(result), official), file=out)
    base = rouge1_baseline(systems, gold)
    print("ROUGE-1 F1 baseline: " + ", ".join(f"{s} {v:.3f}" for s, v in base.scores.items()), file=out)
    print(correlation_report(leaderboard_from_means(base.scores, base.stderr, name="ROUGE-1"), official), file=out)
    # Published scores are rounded to two decimals: equal printed scores are the ties to break.
    print("\nEXAM against the official measures of 16 TREC CAR Y3 systems (the paper's Table 4, as printed):",
          file=out)
    boards = read_leaderboard_table(d / "car_y3_table4.tsv")
    for measure in ("Prec@R", "MAP", "nDCG20"):
        print(correlation_report(boards["EXAM"], boards[measure], ties="exact"), file=out)
