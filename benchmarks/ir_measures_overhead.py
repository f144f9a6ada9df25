"""What going through ir_measures costs against calling qascore directly, on the TREC 2024 RAG
assignments (301 topics) and the WikiQA EXAM benchmark. Wall clock, best of ``--repeat``.

Usage: ``python benchmarks/ir_measures_overhead.py [--data ../shared/data] [--repeat 5]``
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import ir_measures

from qascore.integrations import ir_measures as qim
from qascore.nuggets.formats import AnswerKey, Nugget, Question, RagTopic, Run, read_rag_assignments
from qascore.nuggets.nuggeteer import Nuggeteer
from qascore.nuggets.rag import rag_scores


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / "shared" / "data"))
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    data = Path(args.data)
    rows = []

    topics = read_rag_assignments(data / "nuggets/rag24/assignments.baseline_rag24.test_gpt4o_top20.jsonl")
    rag = [qim.NuggetVital(strict=True), qim.NuggetVital, qim.NuggetWeighted(strict=True), qim.NuggetWeighted,
           qim.NuggetAll(strict=True), qim.NuggetAll]
    key, run = qim.rag_key_qrels(topics), qim.rag_run(topics)
    rows.append(("RAG scores (6), 301 topics", best(lambda: rag_scores(topics), args.repeat),
                 best(lambda: ir_measures.calc_aggregate(rag, key, run), args.repeat),
                 best(lambda: ir_measures.calc_aggregate(rag, qim.rag_key_qrels(topics), qim.rag_run(topics)),
                      args.repeat)))

    kept = [RagTopic(t.qid, " ".join(t.answer_text.split()), tuple(n for n in t.nuggets if n.importance in ("vital", "okay")))
            for t in topics]
    kept = [t for t in kept if t.nuggets]
    answer_key = AnswerKey({t.qid: Question(t.qid, None, [Nugget(t.qid, str(i), n.text, n.importance)
                                                          for i, n in enumerate(t.nuggets, 1)]) for t in kept})
    responses = Run("gpt4o")
    for t in kept:
        responses.add(t.qid, "answer", t.answer_text)
    model = Nuggeteer(answer_key)
    qrels, run_rows = qim.answer_key_qrels(answer_key), qim.response_run(responses)
    evaluator = ir_measures.evaluator([qim.Nuggeteer], qrels)
    rows.append((f"Nuggeteer, {len(kept)} topics (model built once)", best(lambda: model.score([responses], beta=3.0),
                                                                            args.repeat),
                 best(lambda: evaluator.calc_aggregate(run_rows), args.repeat),
                 best(lambda: ir_measures.calc_aggregate([qim.Nuggeteer], qrels, run_rows), args.repeat)))

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "research" / "exam"))
    from wikiqa_bench import build_wikiqa_benchmark

    from qascore.exam.scoring import exam_scores
    from qascore.exam.solvers.lexical import LexicalSolver
    from qascore.exam.workbench import cover_records, grade_paragraphs

    bench = build_wikiqa_benchmark(data / "ava" / "wikiqa", shares=(0.0, 0.4, 0.8, 1.0), max_queries=200)
    graded = grade_paragraphs(bench.bank, bench.systems, LexicalSolver())
    systems = list(bench.systems.systems)
    exam_q = qim.exam_qrels(graded)
    runs = [qim.exam_run(graded, s) for s in systems]
    exam_eval = ir_measures.evaluator([qim.EXAM @ 20], exam_q)
    rows.append((f"EXAM@20 from grades, {len(bench.bank.query_ids)} queries x {len(systems)} systems",
                 best(lambda: exam_scores(bench.bank, cover_records(bench.bank, graded, systems, top_k=20)), args.repeat),
                 best(lambda: [exam_eval.calc_aggregate(r) for r in runs], args.repeat),
                 best(lambda: [ir_measures.calc_aggregate([qim.EXAM @ 20], exam_q, r) for r in runs], args.repeat)))

    print("| scores | qascore direct | ir_measures (inputs ready) | ratio | ir_measures, one call each | ratio |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, direct, through, fresh in rows:
        print(f"| {name} | {direct * 1e3:.1f} ms | {through * 1e3:.1f} ms | {through / direct:.2f}x | "
              f"{fresh * 1e3:.1f} ms | {fresh / direct:.2f}x |")


if __name__ == "__main__":
    main()
