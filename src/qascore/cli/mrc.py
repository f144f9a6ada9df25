"""``qascore mrc``: adapted ROUGE-L / BLEU-4 of DuReader files, or MS MARCO's coco scores.

Inputs are JSON lines (:mod:`qascore.lexical.formats_mrc`); one of them may be ``-`` (stdin).
Output: a text line of percentages (default), one JSON document of fractions (``--json``), or
JSON lines (``--jsonl``: per-question records with ``--per-example``, then the aggregate).
"""
from __future__ import annotations

from ..io import STDIN, dumps, open_output, write_jsonl
from ..lexical.coco import score_msmarco
from ..lexical.formats_mrc import read_dureader_predictions, read_dureader_references, read_msmarco
from ..lexical.mrc import TOKENIZATIONS, VARIANTS, score_dureader
from . import options


def _score(args):
    if args.format == "dureader":
        return score_dureader(read_dureader_predictions(args.predictions), read_dureader_references(args.references),
                              alpha=args.alpha, beta=args.beta, gamma=args.gamma, variant=args.variant,
                              tokenize=args.tokenize, per_question=args.per_example, n_jobs=args.n_jobs)
    return score_msmarco(read_msmarco(args.predictions, candidates=True), read_msmarco(args.references),
                         lowercase=not args.case_sensitive, n_jobs=args.n_jobs)


def write_report(report: dict, output_format: str, out) -> None:
    """``report`` is the result's ``to_dict``; ``per_question`` rows are written when present."""
    if output_format == "json":
        out.write(dumps(report) + "\n")
        return
    rows = report.pop("per_question", [])
    if output_format == "jsonl":
        write_jsonl([*rows, report], out)
        return
    bleu = " ".join(f"BLEU-{n}: {100 * b:.2f}" for n, b in enumerate(report["BLEU-1..N"], 1))
    out.write(f"ROUGE-L: {100 * report['ROUGE-L']:.2f}  {bleu}  (questions scored: {report['n_scored']})\n")
    out.write(report["signature"] + "\n")
    for row in rows:
        out.write("\t".join(str(v) for v in row.values()) + "\n")


def run(args) -> int:
    for flag in ("predictions", "references"):
        if getattr(args, flag) is None:
            raise ValueError(f"the following argument is required: -{flag[0]}/--{flag}")
    if args.predictions == STDIN and args.references == STDIN:
        raise ValueError("only one of --predictions / --references may be - (standard input)")
    report = _score(args).to_dict(per_question=args.per_example)
    with open_output(args.output) as out:
        write_report(report, args.output_format, out)
    return 0


def register(p) -> None:
    """Options and run function of ``qascore mrc`` (its ``qascore --help`` line: ``cli.COMMANDS``)."""
    p.description = "Score MRC answers: DuReader (yes/no and entity bonus) or MS MARCO."
    # Not required by argparse: the old spellings --pred / --ref may give them; run() checks.
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
    p.set_defaults(func=run)
