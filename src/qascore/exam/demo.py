"""The EXAM part of ``qascore demo``: three small systems on bundled questions, and the paper's Table 1."""
from __future__ import annotations

from .articles import read_original_jsonl
from .baseline import rouge1_baseline
from .leaderboard import correlation_report, exam_leaderboard, leaderboard_from_means, read_leaderboard
from .model import Articles
from .paper import recompute_table1, table1_report
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
    print("\nThe paper's Table 1 recomputed from its Table 4 (random tie-breaking of equal printed scores):", file=out)
    print(table1_report(recompute_table1()), file=out)
