"""``qascore mrc``: adapted ROUGE-L / BLEU-4 of DuReader files, or MS MARCO's coco scores."""
from __future__ import annotations

import json
import sys

from ..lexical.coco import score_msmarco
from ..lexical.formats_mrc import read_dureader_predictions, read_dureader_references, read_msmarco
from ..lexical.mrc import TOKENIZATIONS, VARIANTS, score_dureader


def run(args) -> int:
    if args.format == "dureader":
        result = score_dureader(read_dureader_predictions(args.pred), read_dureader_references(args.ref),
                                alpha=args.alpha, beta=args.beta, gamma=args.gamma, variant=args.variant,
                                tokenize=args.tokenize, per_question=args.per_question, n_jobs=args.n_jobs)
    else:
        result = score_msmarco(read_msmarco(args.pred, candidates=True), read_msmarco(args.ref),
                               lowercase=not args.case_sensitive, n_jobs=args.n_jobs)
    report = result.to_dict(per_question=args.per_question)
    out = sys.stdout
    if args.json:
        json.dump(report, out, ensure_ascii=False, indent=1)
        out.write("\n")
        return 0
    bleu = " ".join(f"BLEU-{n}: {100 * b:.2f}" for n, b in enumerate(report["BLEU-1..N"], 1))
    print(f"ROUGE-L: {100 * report['ROUGE-L']:.2f}  {bleu}  (questions scored: {report['n_scored']})", file=out)
    print(report["signature"], file=out)
    for row in report.get("per_question", []):
        print("\t".join(str(v) for v in row.values()), file=out)
    return 0


def register(subparsers) -> None:
    p = subparsers.add_parser("mrc", help="DuReader adapted ROUGE-L/BLEU-4 or MS MARCO ROUGE-L/BLEU",
                              description="Score MRC answers: DuReader (yes/no and entity bonus) or MS MARCO.")
    p.add_argument("--pred", required=True, help="predictions, JSON lines")
    p.add_argument("--ref", required=True, help="references, JSON lines")
    p.add_argument("--format", choices=["dureader", "msmarco"], default="dureader")
    p.add_argument("--alpha", type=float, default=1.0, help="yes/no bonus weight (DuReader, default 1.0)")
    p.add_argument("--beta", type=float, default=1.0, help="entity bonus weight (DuReader, default 1.0)")
    p.add_argument("--gamma", type=float, default=1.2, help="ROUGE-L recall weight (DuReader, default 1.2)")
    p.add_argument("--variant", choices=VARIANTS, default="mrc2018",
                   help="mrc2018: the 2018 challenge script; lic2019: also map full-width punctuation")
    p.add_argument("--tokenize", choices=TOKENIZATIONS, default="char", help="DuReader tokens (default char)")
    p.add_argument("--case-sensitive", action="store_true", help="MS MARCO: do not lower-case")
    p.add_argument("--per-question", action="store_true", help="also print per-question scores")
    p.add_argument("--json", action="store_true", help="print JSON (scores as fractions)")
    p.add_argument("--n-jobs", type=int, default=None, help="threads (default: all cores)")
    p.set_defaults(func=run)
