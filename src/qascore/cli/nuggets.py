"""``qascore nuggets score|assign|rag``: the command line of the nugget methods.

The answer key is the references (``-r``), the run file the predictions (``-p``); ``--key`` and
``--runs`` (and ``--assessment``, ``--assignments``) stay as hidden aliases for one release.
"""
from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterable

from ..io import RowSpool, chunked, display_name, dumps, iter_lines, open_output, standard_output, write_jsonl
from ..nuggets.terms import IDF_SOURCES, Analyzer, IdfTable
from ..nuggets.formats import (Run, iter_rag_assignments, iter_runs, judgement_lines, rag_assignment_lines,
                               read_answer_key, read_judgements, read_runs)
from ..nuggets.nuggeteer import Nuggeteer, assessment, nugget_diagnostics, score_assignment
from ..nuggets.official import BETA_AFTER_2003, RunScore, score_judged_runs
from ..nuggets.pourpre import Pourpre
from ..nuggets.rag import RagTotals, topic_line
from . import options

RAG_CHUNK_SIZE = 1_000  # topics read, judged, scored and written at a time (--chunk-size)


def _add_inputs(p, runs_required: bool) -> None:
    options.add_references(p, "answer key (vital/okay with Qid headers, or a pyramid key)", required=False)
    options.add_hidden_alias(p, "--key", dest="references")
    options.add_predictions(p, "run file: '<qid> <run-tag> <docid> <answer string>' (- for stdin)", required=False)
    options.add_hidden_alias(p, "--runs", dest="predictions")
    p.set_defaults(runs_required=runs_required)


def _add_model_options(p) -> None:
    p.add_argument("--judgements", help="judgement file (.otherjudged layout): exact scoring and training data")
    p.add_argument("--descriptions-only", action="store_true", help="use judgements for exact scoring only")
    p.add_argument("--threshold", type=float, default=0.2, help="global acceptance threshold (default 0.2)")
    p.add_argument("-n", "--ngram", type=int, default=2, choices=(1, 2, 3), help="longest n-gram (default 2)")
    p.add_argument("--stem", action="store_true", help="Porter-stem terms")
    p.add_argument("--remove-stopwords", action="store_true")
    p.add_argument("--weighting", choices=("idf", "count"), default="idf")
    source = p.add_mutually_exclusive_group()
    source.add_argument("--idf", choices=IDF_SOURCES, default="background",
                        help="background (default): the shipped wordfreq table, so a run's score does not depend on "
                        "the other runs in the file; runs: document frequencies over all responses scored together")
    source.add_argument("--idf-corpus", help="documents, one per line, for idf (instead of --idf)")
    source.add_argument("--df-table", help="precomputed df table: 'N <documents>' then '<term>\\t<df>' lines "
                        "(instead of --idf)")
    p.add_argument("--null-outside-group", action="store_true",
                   help="the null nugget is not one of the question's nuggets |G| in informativeness (the paper's G)")
    p.add_argument("--beta", type=float, default=BETA_AFTER_2003, help="F beta (5 for TREC 2003, 3 after)")
    options.add_n_jobs(p)


def _check_inputs(args) -> None:
    if not args.references:
        raise ValueError("the answer key is required: -r/--references KEY")
    if args.runs_required and not args.predictions:
        raise ValueError("the run file is required: -p/--predictions RUNS")


def _read_key(args):
    key = read_answer_key(args.references)
    if not key.questions:
        raise ValueError(f"{display_name(args.references)}: the answer key holds no question")
    return key


def _read_runs(args) -> list:
    runs = list(read_runs(args.predictions).values())
    if not runs:
        raise ValueError(f"{display_name(args.predictions)}: the run file holds no response")
    return runs


def _model(args, key) -> Nuggeteer:
    judged = read_judgements(args.judgements) if args.judgements else None
    idf = args.idf
    if args.df_table:
        idf = IdfTable.from_df_file(args.df_table)
    elif args.idf_corpus:
        analyzer = Analyzer(stem=args.stem, stopwords=args.remove_stopwords)
        idf = IdfTable.from_documents((line for _, line in iter_lines(args.idf_corpus)), analyzer,
                                      source=f"corpus:{args.idf_corpus}")
    return Nuggeteer(key, judgements=judged, learn_from_judgements=not args.descriptions_only, n=args.ngram,
                     stem=args.stem, stopwords=args.remove_stopwords, weighting=args.weighting, idf=idf,
                     null_in_group=not args.null_outside_group, threshold=args.threshold)


def _report_unknown(tag: str, unknown) -> None:
    if unknown:
        print(f"qascore nuggets: run {tag} names questions not in the answer key: {', '.join(unknown)}",
              file=sys.stderr)


def _question_rows(score: RunScore):
    for q in score.questions.values():
        yield {"run": score.run_tag, "qid": q.qid, "f": q.f, "recall": q.recall, "precision": q.precision,
               "length": q.length, "vital": q.vital_matched, "okay": q.okay_matched}


def _run_row(score: RunScore) -> dict:
    row: dict = {"run": score.run_tag, "qid": "all", "f": score.mean, "questions": len(score.questions)}
    if score.interval is not None:
        row["ci95"] = list(score.interval)
    row["signature"] = score.signature
    return row


class _ScoreReport:
    """Run scores written as they come: JSON lines and the JSON document's runs at once (flushed);
    the text report's per-question table waits in a temporary file, since the runs' table and
    signatures follow it."""

    def __init__(self, out, output_format: str, per_example: bool) -> None:
        self.out, self.format, self.per_example, self.n = out, output_format, per_example, 0
        self.spool = RowSpool() if per_example and output_format == "text" else None
        self.summary: list[str] = []
        self.signatures: dict[str, None] = {}

    def add(self, s: RunScore) -> None:
        _report_unknown(s.run_tag, s.unknown_questions)
        if self.format == "jsonl":
            if self.per_example:
                write_jsonl(_question_rows(s), self.out)
            write_jsonl([_run_row(s)], self.out)
        elif self.format == "json":
            run = {**_run_row(s), **({"per_question": list(_question_rows(s))} if self.per_example else {})}
            self.out.write(("," if self.n else '{"runs":[') + dumps(run))
        else:
            if self.spool is not None:
                self.spool.write(f"{s.run_tag:<16} {q.qid:<12} {q.f:>8.4f} {q.recall:>8.4f} {q.precision:>9.4f}\n"
                                 .encode() for q in s.questions.values())
            ci = f"[{s.interval[0]:.4f}, {s.interval[1]:.4f}]" if s.interval is not None else "-"
            self.summary.append(f"{s.run_tag:<16} {s.mean:>8.4f}  {ci:<18} {len(s.questions)}\n")
            self.signatures[s.signature] = None
        self.out.flush()
        self.n += 1

    def finish(self) -> None:
        if self.format == "json":
            self.out.write(("]}" if self.n else '{"runs":[]}') + "\n")
        elif self.format == "text":
            if self.spool is not None:
                self.out.write(f"{'run':<16} {'qid':<12} {'F':>8} {'recall':>8} {'precision':>9}\n")
                self.spool.copy_to(self.out)
                self.out.write("\n")
            self.out.write(f"{'run':<16} {'F':>8}  {'95% interval':<18} questions\n")
            self.out.write("".join(self.summary))
            for signature in self.signatures:
                self.out.write(f"signature: {signature}\n")


def _streams_runs(args, model) -> bool:
    """Whether a run's score is independent of the other runs (so runs can be scored one at a
    time): not when idf comes from the responses scored together."""
    return args.weighting == "count" or model.idf is not None


def _run_groups(args, model, *, per_run: bool = True) -> Iterable[list[Run]]:
    """The runs to score together: one at a time where :func:`_streams_runs` (and ``per_run``)
    allows and the file lists each run's lines together (:func:`iter_runs`), else all in one."""
    if per_run and _streams_runs(args, model):
        return ([run] for run in iter_runs(args.predictions))
    return [_read_runs(args)]


def cmd_score(args) -> int:
    """Runs are scored and written one at a time when a run's score does not depend on the others
    and the file lists each run's lines together (:func:`iter_runs`); else all together."""
    if args.method == "official":
        if not args.judgements:
            raise ValueError("--method official needs --judgements")
        args.runs_required = False
    _check_inputs(args)
    key = _read_key(args)
    batches: Iterable[list[RunScore]]
    if args.method == "official":
        batches = [list(score_judged_runs(key, read_judgements(args.judgements), beta=args.beta).values())]
    else:
        model: Nuggeteer | Pourpre
        if args.method == "pourpre":
            model = Pourpre(key, weighting=args.weighting, stem=args.stem, stopwords=args.remove_stopwords,
                            threshold=args.threshold)
        else:
            model = _model(args, key)
        batches = (model.score(group, beta=args.beta, n_jobs=args.n_jobs) for group in _run_groups(args, model))
    with open_output(args.output) as out:
        report = _ScoreReport(out, args.output_format, args.per_example)
        for scores in batches:
            for score in scores:
                report.add(score)
        if not report.n and args.method != "official":
            raise ValueError(f"{display_name(args.predictions)}: the run file holds no response")
        report.finish()
    return 0


def cmd_assign(args) -> int:
    """Runs are assigned and their blocks written one at a time as ``score`` scores them (not with
    ``--diagnostics``, which are per nugget over every run)."""
    _check_inputs(args)
    if not args.output:
        raise ValueError("assign writes an assessment file: -o/--output FILE")
    summary_out = standard_output()  # the summary's stream, checked before any work
    model = _model(args, _read_key(args))
    summary = []
    with open_output(args.output) as out:
        for runs in _run_groups(args, model, per_run=not args.diagnostics):
            table = model.recall_table(runs, n_jobs=args.n_jobs)
            assignments = model.assign_from_table(table, runs)
            for a in assignments:
                _report_unknown(a.run.tag, a.unknown_questions)
            out.write(judgement_lines(*assessment(assignments)))
            summary += [{"run": a.run.tag, "assigned": sum(len(v) for v in a.matched().values()),
                         "score": score_assignment(model.key, a, args.beta).mean, "signature": a.signature}
                        for a in assignments]
        if not summary:
            raise ValueError(f"{display_name(args.predictions)}: the run file holds no response")
    if args.diagnostics:
        with open_output(args.diagnostics) as out:
            write_jsonl(nugget_diagnostics(model, table), out)
    write_jsonl(summary, summary_out)
    return 0


def cmd_rag(args) -> int:
    """Streamed: ``--chunk-size`` topics are read, (judged,) scored and written at a time; the
    mean comes from exact sums, so the output does not depend on the chunk size."""
    if not args.predictions:
        raise ValueError("the assignments file is required: -p/--predictions ASSIGNMENTS.jsonl")
    if args.assignments_out and args.judge is None:
        raise ValueError("--assignments-out writes the judged assignments: it needs --judge")
    judge = None
    if args.judge is not None:
        from ..judges.load import is_onnx_spec, load_judge  # here: the judges load only when asked for
        from ..nuggets.judged import judge_assignments

        if is_onnx_spec(args.judge):
            options.check_extra("onnx", "onnxruntime", "tokenizers")
        judge = load_judge(args.judge, n_threads=args.n_jobs, cache=args.cache)
    totals = RagTotals(judge=None if judge is None else judge.signature())
    progress = options.ProgressBar(None, options.show_progress(args, None), "rag")
    with open_output(args.output) as out, \
            (open_output(args.assignments_out) if args.assignments_out else contextlib.nullcontext()) as judged_out:
        for topics in chunked(iter_rag_assignments(args.predictions), args.chunk_size):
            if judge is not None:
                topics, _ = judge_assignments(topics, judge)
                if judged_out is not None:
                    judged_out.write(rag_assignment_lines(topics))
            rows = totals.add(topics)
            if args.output_format == "json":  # the topics of one document, its mean and signature last
                out.write(("," if totals.n > len(rows) else '{"topics":[') + ",".join(dumps(r) for r in rows))
            else:  # the per-topic lines of the official script, byte for byte
                out.write("".join(topic_line(r) + "\n" for r in rows))
            out.flush()
            progress.advance(len(rows))
        progress.close()
        if not totals.n:
            raise ValueError(f"{display_name(args.predictions)}: no topic to score")
        if args.output_format == "json":
            out.write(f'],"mean":{dumps(totals.mean())},"signature":{dumps(totals.signature)}}}\n')
        else:
            out.write(topic_line(totals.mean()) + "\n")
    bad = totals.malformed_labels
    if bad["importance"] or bad["assignment"]:
        print(f"qascore nuggets rag: {sum(bad['importance'].values())} nuggets with an importance other than "
              f"vital/okay (counted in 'all' only) and {sum(bad['assignment'].values())} with an unknown "
              "assignment (support 0)", file=sys.stderr)
    return 0


def register(parser) -> None:
    """Options and run function of ``qascore nuggets`` (its ``qascore --help`` line: ``cli.COMMANDS``)."""
    sub = parser.add_subparsers(dest="nuggets_command", required=True)

    p = sub.add_parser("score", help="per-question and mean nugget F of each run")
    _add_inputs(p, runs_required=True)
    _add_model_options(p)
    p.add_argument("--method", choices=("nuggeteer", "pourpre", "official"), default="nuggeteer",
                   help="official: from the judgements alone (no -p needed)")
    options.add_output(p)
    p.set_defaults(func=cmd_score)

    p = sub.add_parser("assign", help="assign nuggets to responses; write an assessment file")
    _add_inputs(p, runs_required=True)
    _add_model_options(p)
    p.add_argument("-o", "--output", metavar="FILE", help="the assessment file: Nuggeteer's guesses in the "
                   "judgement layout (written to a temporary name, then renamed)")
    options.add_hidden_alias(p, "--assessment", dest="output")
    p.add_argument("--diagnostics", help="also write JSON lines: per nugget, assignments, best score and threshold")
    p.set_defaults(func=cmd_assign)

    p = sub.add_parser("rag", help="TREC 2024 RAG nugget scores from nugget assignments (JSONL)")
    options.add_predictions(p, "JSONL: qid, answer_text, nuggets [{text, importance, assignment}] (- for stdin)",
                            required=False)
    options.add_hidden_alias(p, "--assignments", dest="predictions")
    p.add_argument("--judge", metavar="SPEC",
                   help="assign the nuggets with a judge instead of the file's assignments: each nugget against "
                        "each answer sentence, the query as question (containment, workbench, linear, default, "
                        "cascade, A>B or a model path; see docs/judges.md)")
    p.add_argument("--cache", default=None, metavar="DIR",
                   help="with --judge: keep its verdicts in DIR and reuse them in later runs")
    p.add_argument("--assignments-out", metavar="FILE", help="with --judge: also write the judged assignments")
    options.add_n_jobs(p)
    options.add_chunk_size(p, RAG_CHUNK_SIZE)
    options.add_progress(p)
    options.add_output(p, per_example=False)
    p.set_defaults(func=cmd_rag)
