"""``qascore nuggets score|assign|rag``: the command line of the nugget methods."""
from __future__ import annotations

import json
import sys

from ..nuggets.analysis import IdfTable
from ..nuggets.formats import read_answer_key, read_judgements, read_rag_assignments, read_runs, write_judgements
from ..nuggets.nuggeteer import Nuggeteer, assessment, nugget_diagnostics, score_assignment
from ..nuggets.official import BETA_AFTER_2003, score_judged_runs
from ..nuggets.pourpre import Pourpre
from ..nuggets.rag import rag_scores


def _add_model_options(p, runs_required: bool = True) -> None:
    p.add_argument("--key", required=True, help="answer key (vital/okay with Qid headers, or a pyramid key)")
    p.add_argument("--runs", required=runs_required, help="run file: '<qid> <run-tag> <docid> <answer string>'")
    p.add_argument("--judgements", help="judgement file (.otherjudged layout): exact scoring and training data")
    p.add_argument("--descriptions-only", action="store_true", help="use judgements for exact scoring only")
    p.add_argument("--threshold", type=float, default=0.2, help="global acceptance threshold (default 0.2)")
    p.add_argument("-n", "--ngram", type=int, default=2, choices=(1, 2, 3), help="longest n-gram (default 2)")
    p.add_argument("--stem", action="store_true", help="Porter-stem terms")
    p.add_argument("--remove-stopwords", action="store_true")
    p.add_argument("--weighting", choices=("idf", "count"), default="idf")
    p.add_argument("--idf-corpus", help="documents, one per line, for idf (default: the responses being scored)")
    p.add_argument("--df-table", help="precomputed df table: 'N <documents>' then '<term>\\t<df>' lines")
    p.add_argument("--n-jobs", type=int, default=None)


def _model(args) -> Nuggeteer:
    key = read_answer_key(args.key)
    judged = read_judgements(args.judgements) if args.judgements else None
    idf = None
    if args.df_table:
        idf = IdfTable.from_df_file(args.df_table)
    elif args.idf_corpus:
        from ..io import iter_lines
        from ..nuggets.analysis import Analyzer

        analyzer = Analyzer(stem=args.stem, stopwords=args.remove_stopwords)
        idf = IdfTable.from_documents((line for _, line in iter_lines(args.idf_corpus)), analyzer, source=f"corpus:{args.idf_corpus}")
    return Nuggeteer(key, judgements=judged, learn_from_judgements=not args.descriptions_only, n=args.ngram, stem=args.stem,
                     stopwords=args.remove_stopwords, weighting=args.weighting, idf=idf, threshold=args.threshold)


def _report_unknown(tag: str, unknown) -> None:
    if unknown:
        print(f"qascore nuggets: run {tag} names questions not in the answer key: {', '.join(unknown)}", file=sys.stderr)


def _print_scores(scores, out) -> None:
    for s in scores:
        _report_unknown(s.run_tag, s.unknown_questions)
        for q in s.questions.values():
            out.write(json.dumps({"run": s.run_tag, "qid": q.qid, "f": q.f, "recall": q.recall, "precision": q.precision,
                                  "length": q.length, "vital": q.vital_matched, "okay": q.okay_matched}) + "\n")
        row = {"run": s.run_tag, "qid": "all", "f": s.mean, "signature": s.signature}
        if s.interval is not None:
            row["ci95"] = list(s.interval)
        out.write(json.dumps(row) + "\n")


def cmd_score(args) -> int:
    beta = args.beta
    if args.method == "official":
        if not args.judgements:
            raise ValueError("--method official needs --judgements")
        scores = list(score_judged_runs(read_answer_key(args.key), read_judgements(args.judgements), beta=beta).values())
    elif not args.runs:
        raise ValueError(f"--method {args.method} needs --runs")
    elif args.method == "pourpre":
        pourpre = Pourpre(read_answer_key(args.key), weighting=args.weighting, stem=args.stem,
                          stopwords=args.remove_stopwords, threshold=args.threshold)
        scores = pourpre.score(list(read_runs(args.runs).values()), beta=beta, n_jobs=args.n_jobs)
    else:
        model = _model(args)
        scores = model.score(list(read_runs(args.runs).values()), beta=beta, n_jobs=args.n_jobs)
    _print_scores(scores, sys.stdout)
    return 0


def cmd_assign(args) -> int:
    model = _model(args)
    runs = list(read_runs(args.runs).values())
    table = model.recall_table(runs, n_jobs=args.n_jobs)
    assignments = model.assign_from_table(table, runs)
    for a in assignments:
        _report_unknown(a.run.tag, a.unknown_questions)
    judged, comments = assessment(assignments)
    write_judgements(judged, args.assessment, comments)
    if args.diagnostics:
        with open(args.diagnostics, "w", encoding="utf-8") as out:
            for row in nugget_diagnostics(model, table):
                out.write(json.dumps(row) + "\n")
    for a in assignments:
        print(json.dumps({"run": a.run.tag, "assigned": sum(len(v) for v in a.matched().values()),
                          "score": score_assignment(model.key, a, args.beta).mean, "signature": a.signature}))
    return 0


def cmd_rag(args) -> int:
    scores = rag_scores(read_rag_assignments(args.assignments))
    text = "\n".join(scores.lines()) + "\n"
    if args.output:
        with open(args.output, "w", encoding="utf-8") as out:
            out.write(text)
    else:
        sys.stdout.write(text)
    bad = scores.malformed_labels
    if bad["importance"] or bad["assignment"]:
        print(f"qascore nuggets rag: {sum(bad['importance'].values())} nuggets with an importance other than vital/okay "
              f"(counted in 'all' only) and {sum(bad['assignment'].values())} with an unknown assignment (support 0)",
              file=sys.stderr)
    return 0


def register(subparsers) -> None:
    parser = subparsers.add_parser("nuggets", help="nugget evaluation: official F, Nuggeteer, Pourpre, TREC RAG scores")
    sub = parser.add_subparsers(dest="nuggets_command", required=True)

    p = sub.add_parser("score", help="per-question and mean nugget F of each run")
    _add_model_options(p, runs_required=False)
    p.add_argument("--method", choices=("nuggeteer", "pourpre", "official"), default="nuggeteer",
                   help="official: from the judgements alone (no --runs needed)")
    p.add_argument("--beta", type=float, default=BETA_AFTER_2003, help="F beta (5 for TREC 2003, 3 after)")
    p.set_defaults(func=cmd_score)

    p = sub.add_parser("assign", help="assign nuggets to responses; write an assessment file")
    _add_model_options(p)
    p.add_argument("--assessment", required=True, help="output: Nuggeteer's guesses in the judgement layout")
    p.add_argument("--diagnostics", help="output JSON lines: per nugget, assignments, best score and threshold")
    p.add_argument("--beta", type=float, default=BETA_AFTER_2003)
    p.set_defaults(func=cmd_assign)

    p = sub.add_parser("rag", help="TREC 2024 RAG nugget scores from nugget assignments (JSONL)")
    p.add_argument("--assignments", required=True, help="JSONL: qid, answer_text, nuggets [{text, importance, assignment}]")
    p.add_argument("--output", help="write the per-topic JSON lines here (default stdout)")
    p.set_defaults(func=cmd_rag)
