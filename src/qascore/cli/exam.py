"""``qascore exam`` (score articles with exam questions) and ``qascore exam-wikiqa`` (build the benchmark)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from ..exam.articles import read_articles, read_paragraph_collection, write_original_jsonl
from ..exam.model import Articles
from ..exam.questions import read_question_bank, write_simple_jsonl


def make_solver(spec: str, *, margin: float, tokenizer: str | None, threshold: float, entailment_index: int):
    """``lexical``, ``embedding`` or ``onnx:PATH`` (a sequence-pair model; needs ``tokenizer``)."""
    if spec == "lexical":
        from ..exam.solvers.lexical import LexicalSolver

        return LexicalSolver(margin=margin)
    if spec == "embedding":
        from ..exam.solvers.embedding import EmbeddingSolver

        return EmbeddingSolver(margin=margin)
    if spec.startswith("onnx:"):
        if tokenizer is None:
            raise ValueError("--solver onnx:PATH needs --tokenizer TOKENIZER_JSON")
        from ..exam.solvers.pair import PairModelSolver

        return PairModelSolver(spec[5:], tokenizer, margin=margin, threshold=threshold,
                               entailment_index=entailment_index)
    raise ValueError(f"unknown solver {spec!r}; use lexical, embedding or onnx:PATH")


def _read_all_articles(paths, args) -> Articles:
    paragraphs = read_paragraph_collection(args.paragraphs) if args.paragraphs else None
    out = Articles()
    for path in paths:
        out.merge(read_articles(path, args.articles_format, paragraphs=paragraphs, top_k=args.top_k,
                                strip_query_prefix=args.strip_query_prefix))
    return out


def run_exam(args) -> int:
    from ..exam.scoring import evaluate

    bank = read_question_bank(args.questions, args.questions_format)
    articles = _read_all_articles(args.articles, args)
    gold = _read_all_articles([args.gold], args) if args.gold else None
    solver = make_solver(args.solver, margin=args.margin, tokenizer=args.tokenizer, threshold=args.threshold,
                         entailment_index=args.entailment_index)
    result = evaluate(bank, articles, solver, gold=gold, unknown_queries=args.unknown_queries)
    out = sys.stdout
    print(result.table(), file=out)
    print(result.signature, file=out)
    if args.records:
        with open(args.records, "w", encoding="utf-8") as fh:
            for r in result.records:
                fh.write(json.dumps(r.__dict__, ensure_ascii=False) + "\n")
    if args.graded:
        from ..exam.workbench import grade_paragraphs, write_workbench_graded

        write_workbench_graded(grade_paragraphs(bank, articles, solver), args.graded, solver=solver)
    if args.official:
        from ..exam.leaderboard import correlation_report, exam_leaderboard, plot_leaderboards, read_leaderboard

        official = read_leaderboard(args.official, name=Path(args.official).stem)
        exam = exam_leaderboard(result)
        print(correlation_report(exam, official, repeats=args.repeats, seed=args.seed), file=out)
        if args.gold:
            from ..exam.baseline import rouge1_baseline
            from ..exam.leaderboard import leaderboard_from_means

            base = rouge1_baseline(articles, gold)
            rouge_board = leaderboard_from_means(base.scores, base.stderr, name="ROUGE-1 F1")
            print(correlation_report(rouge_board, official, repeats=args.repeats, seed=args.seed), file=out)
        if args.plot:
            plot_leaderboards(exam, official, args.plot)
    elif args.plot:
        raise ValueError("--plot needs --official")
    return 0


def run_wikiqa(args) -> int:
    from ..exam.wikiqa_bench import build_wikiqa_benchmark

    bench = build_wikiqa_benchmark(args.wikiqa, n_choices=args.choices, seed=args.seed, max_queries=args.max_queries)
    out = Path(args.out)
    (out / "systems").mkdir(parents=True, exist_ok=True)
    write_simple_jsonl(bench.bank, out / "questions.jsonl")
    for system in bench.systems.systems:
        write_original_jsonl(bench.systems, system, out / "systems" / f"{system}.jsonl", prefix="wikiqa")
    write_original_jsonl(bench.gold, "gold", out / "gold.jsonl", prefix="wikiqa")
    with open(out / "expected.txt", "w", encoding="utf-8") as fh:
        fh.write("# system and its share of answer-bearing sentences: the known leaderboard\n")
        for system, share in bench.shares.items():
            fh.write(f"{system}\t{share}\n")
    print(f"wrote {len(bench.bank)} questions for {len(bench.bank.query_ids)} queries and "
          f"{len(bench.systems.systems)} systems to {out} (WikiQA text: research use only, do not redistribute)")
    if args.check:
        from ..exam.leaderboard import correlation_report, exam_leaderboard, leaderboard_from_means
        from ..exam.scoring import evaluate

        solver = make_solver(args.check, margin=0.0, tokenizer=None, threshold=0.5, entailment_index=-1)
        result = evaluate(bench.bank, bench.systems, solver, gold=bench.gold)
        print(result.table())
        print(result.signature)
        known = leaderboard_from_means(dict(bench.shares), name="known share")
        print(correlation_report(exam_leaderboard(result), known, repeats=10, ties="none", seed=args.seed))
        print(f"solver accuracy on the gold documents: {result.gold.exam:.3f}")
    return 0


def register(subparsers) -> None:
    p = subparsers.add_parser("exam", help="EXAM: answerability of exam questions from system articles")
    p.add_argument("--questions", required=True, help="question bank (TQA JSON, workbench JSONL, or our JSONL)")
    p.add_argument("--questions-format", default="auto", choices=["auto", "tqa", "workbench", "jsonl"])
    p.add_argument("--articles", required=True, action="append",
                   help="articles: original JSONL, CAR run, workbench .jsonl.gz or a folder of <query>.txt (repeatable)")
    p.add_argument("--articles-format", default="auto", choices=["auto", "original", "car", "workbench", "text"])
    p.add_argument("--paragraphs", help="paragraph collection for CAR runs (JSONL or id<TAB>text)")
    p.add_argument("--top-k", type=int, default=20, help="paragraphs per query taken from runs (default 20)")
    p.add_argument("--strip-query-prefix", action="store_true", help="CAR runs: tqa2:L_0432 -> L_0432")
    p.add_argument("--solver", default="lexical", help="lexical (default), embedding, or onnx:PATH")
    p.add_argument("--tokenizer", help="tokenizer.json of the onnx:PATH pair model")
    p.add_argument("--threshold", type=float, default=0.5, help="onnx pair model: support needed (default 0.5)")
    p.add_argument("--entailment-index", type=int, default=-1, help="onnx pair model: entailment logit index")
    p.add_argument("--margin", type=float, default=0.0, help="abstain unless the best choice wins by more")
    p.add_argument("--gold", help="gold articles (one system) for n-EXAM relative to gold")
    p.add_argument("--official", help="official leaderboard: 'system score [stderr]' per line")
    p.add_argument("--plot", help="write a PNG of EXAM against the official leaderboard")
    p.add_argument("--repeats", type=int, default=10, help="random tie-breaking repeats (default 10)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--records", help="write per-question records as JSONL")
    p.add_argument("--graded", help="write paragraph grades in the workbench's JSONL.gz format")
    p.add_argument("--unknown-queries", default="error", choices=["error", "ignore"])
    p.set_defaults(func=run_exam)

    w = subparsers.add_parser("exam-wikiqa", help="build the WikiQA-derived EXAM validation benchmark")
    w.add_argument("--wikiqa", required=True, help="folder of the WikiQA release (WikiQA-dev.tsv, ...)")
    w.add_argument("--out", required=True, help="output folder")
    w.add_argument("--choices", type=int, default=4)
    w.add_argument("--seed", type=int, default=0)
    w.add_argument("--max-queries", type=int, default=None)
    w.add_argument("--check", choices=["lexical", "embedding"], help="also evaluate with this solver and report")
    w.set_defaults(func=run_wikiqa)
