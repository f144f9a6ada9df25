"""``qascore mrc``: adapted ROUGE-L / BLEU-4 of DuReader files, or MS MARCO's coco scores.

Inputs are JSON lines (:mod:`qascore.lexical.formats`); one of them may be ``-`` (stdin).
Output: a text line of percentages (default), one JSON document of fractions (``--json``), or
JSON lines (``--jsonl``: per-question records with ``--per-example``, then the aggregate).

Streamed: the references are read and scored ``--chunk-size`` questions at a time, in their
order (the scripts' order), each joined to its prediction by id (:class:`qascore.io.KeyedJoin`:
a prediction file is read twice, its ids and then its records, so files in the same order hold
one chunk in memory; predictions from stdin are held whole). The corpus figures are the ones of
a single pass; per-question JSON lines are written per chunk, and the rows of a report that
names the aggregate first wait in a temporary file.
"""
from __future__ import annotations

from ..io import STDIN, KeyedJoin, RowSpool, chunked, dumps, open_output, write_bytes, write_document
from ..lexical.coco import MsMarcoTotals, msmarco_pair
from ..lexical.formats import iter_dureader_predictions, iter_dureader_references, iter_msmarco
from ..lexical.mrc import TOKENIZATIONS, VARIANTS, DuReaderTotals, question_of
from . import options

CHUNK_SIZE = 10_000  # questions read, scored and written at a time (--chunk-size)


class _DuReader:
    def __init__(self, args) -> None:
        self.variant, self.tokenize = args.variant, args.tokenize
        self.totals = DuReaderTotals(alpha=args.alpha, beta=args.beta, gamma=args.gamma, variant=args.variant,
                                     tokenize=args.tokenize, n_jobs=args.n_jobs)
        self.bleu_name = f"BLEU-{self.totals.settings['max_order']}"
        self.predictions = KeyedJoin(iter_dureader_predictions, args.predictions)
        self.references = iter_dureader_references(args.references)
        self.missing = 0

    def score(self, chunk: list) -> list[dict]:
        """Per-question rows of a chunk of (id, reference)."""
        questions = []
        for qid, reference in chunk:
            prediction = self.predictions.pop(qid)
            question = question_of(qid, reference, prediction, self.variant, self.tokenize)
            if question is not None:
                self.missing += prediction is None
                questions.append(question)
        if not questions:
            return []
        counts = self.totals.add(questions)
        return [{"question_id": q.qid, "ROUGE-L": r, self.bleu_name: b}
                for q, r, b in zip(questions, counts.rouge.tolist(), counts.question_bleu().tolist())]

    def result(self):
        return self.totals.result(self.missing, self.predictions.unmatched)


class _MsMarco:
    def __init__(self, args) -> None:
        self.lowercase = not args.case_sensitive
        self.totals = MsMarcoTotals(lowercase=self.lowercase, n_jobs=args.n_jobs)
        self.predictions = KeyedJoin(lambda path: iter_msmarco(path, candidates=True), args.predictions)
        self.references = iter_msmarco(args.references)
        self.missing = 0

    def score(self, chunk: list) -> list[dict]:
        ids, candidates, answers = [], [], []
        for qid, reference in chunk:
            candidate = self.predictions.pop(qid)
            pair = msmarco_pair(reference, candidate, self.lowercase)
            if pair is not None:
                self.missing += candidate is None
                ids.append(qid)
                candidates.append(pair[0])
                answers.append(pair[1])
        if not ids:
            return []
        rouge = self.totals.add(ids, candidates, answers)
        return [{"query_id": q, "ROUGE-L": r} for q, r in zip(ids, rouge.tolist())]

    def result(self):
        return self.totals.result(self.missing, self.predictions.unmatched)


class _Report:
    """Per-question rows as they are scored (straight out for JSON lines, else spooled), then the
    aggregate in the chosen format."""

    def __init__(self, out, output_format: str, per_example: bool) -> None:
        self.out, self.format, self.per_example = out, output_format, per_example
        self.spool = RowSpool(b"," if output_format == "json" else b"") if per_example and output_format != "jsonl" \
            else None

    def add(self, rows: list[dict]) -> None:
        if not self.per_example or not rows:
            return
        if self.format == "jsonl":
            write_bytes(self.out, "".join(dumps(row) + "\n" for row in rows).encode("utf-8"))
            self.out.flush()
        elif self.format == "json":
            assert self.spool is not None
            self.spool.write(dumps(row).encode("utf-8") for row in rows)
        else:
            assert self.spool is not None
            self.spool.write(("\t".join(str(v) for v in row.values()) + "\n").encode("utf-8") for row in rows)

    def finish(self, report: dict) -> None:
        if self.format == "jsonl":
            self.out.write(dumps(report) + "\n")
            return
        if self.format == "json":
            write_document(self.out, report, "per_question", self.spool)
            return
        bleu = " ".join(f"BLEU-{n}: {100 * b:.2f}" for n, b in enumerate(report["BLEU-1..N"], 1))
        self.out.write(f"ROUGE-L: {100 * report['ROUGE-L']:.2f}  {bleu}  (questions scored: {report['n_scored']})\n")
        self.out.write(report["signature"] + "\n")
        if self.spool is not None:
            self.spool.copy_to(self.out)


def run(args) -> int:
    for flag in ("predictions", "references"):
        if getattr(args, flag) is None:
            raise ValueError(f"the following argument is required: -{flag[0]}/--{flag}")
    if args.predictions == STDIN and args.references == STDIN:
        raise ValueError("only one of --predictions / --references may be - (standard input)")
    scorer = _DuReader(args) if args.format == "dureader" else _MsMarco(args)
    progress = options.ProgressBar(None, options.show_progress(args, None), "mrc")
    with open_output(args.output) as out:
        report = _Report(out, args.output_format, args.per_example)
        for chunk in chunked(scorer.references, args.chunk_size):
            report.add(scorer.score(chunk))
            progress.advance(len(chunk))
        progress.close()
        report.finish(scorer.result().to_dict())
    return 0


def register(p) -> None:
    """Options and run function of ``qascore mrc`` (its ``qascore --help`` line: ``cli.COMMANDS``)."""
    p.description = "Score MRC answers: DuReader (yes/no and entity bonus) or MS MARCO."
    # Not required by argparse: the alias spellings --pred / --ref may give them; run() checks.
    options.add_predictions(p, help="predictions, JSON lines, or - for stdin", required=False)
    options.add_references(p, help="references, JSON lines, or - for stdin", required=False)
    options.add_hidden_alias(p, "--pred", dest="predictions")
    options.add_hidden_alias(p, "--ref", dest="references")
    options.add_format(p, choices=("dureader", "msmarco"), default="dureader",
                       help="dureader: question_id records; msmarco: query_id records")
    p.add_argument("--alpha", type=float, default=1.0, help="yes/no bonus weight (DuReader, default 1.0)")
    p.add_argument("--beta", type=float, default=1.0, help="entity bonus weight (DuReader, default 1.0)")
    p.add_argument("--gamma", type=float, default=1.2, help="ROUGE-L recall weight (DuReader, default 1.2)")
    p.add_argument("--variant", choices=VARIANTS, default="mrc2018",
                   help="mrc2018: the 2018 challenge script; lic2019: also map full-width punctuation")
    p.add_argument("--tokenize", choices=TOKENIZATIONS, default="char", help="DuReader tokens (default char)")
    p.add_argument("--case-sensitive", action="store_true", help="MS MARCO: do not lower-case")
    options.add_output(p)
    options.add_hidden_alias(p, "--per-question", dest="per_example", action="store_true")
    options.add_n_jobs(p)
    options.add_chunk_size(p, CHUNK_SIZE)
    options.add_progress(p)
    p.set_defaults(func=run)
