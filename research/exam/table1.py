"""The EXAM paper's Table 1 (rank correlations) recomputed from its Table 4 (16 TREC CAR Y3 systems).

Usage: ``python research/exam/table1.py [--repeats 2000] [--seed 0]``.

Table 4's scores are printed rounded to two decimals, so many systems tie. The paper's protocol:
systems within standard error are tied, ties are broken at random, the correlation is computed and
the process repeated ten times (its Table 1 reports the mean; "standard errors are below 0.02").
With rounded scores and no per-query data, systems with equal printed scores are the ties
(``ties="exact"``). A correlation "reproduces" when the paper's value lies within two standard errors
of a 10-repeat mean (estimated over many repeats) plus 0.005 for the paper's own rounding.
Table 4 ships with qascore as demo data (``demo_data/exam/car_y3_table4.tsv``).
"""
from __future__ import annotations

import argparse
import math
from dataclasses import dataclass
from importlib import resources

from qascore.exam.leaderboard import read_leaderboard_table
from qascore.stats import Leaderboard, leaderboard_correlation

MEASURES = ("EXAM", "n-EXAM", "Prec@R", "MAP", "nDCG20", "ROUGE")

# Table 1 of the paper: (row, column) -> (Spearman, Kendall).
TABLE1 = {
    ("ROUGE", "EXAM"): (-0.09, -0.07), ("ROUGE", "Prec@R"): (-0.01, 0.00), ("ROUGE", "MAP"): (-0.07, -0.05),
    ("ROUGE", "nDCG20"): (-0.01, 0.00), ("nDCG20", "EXAM"): (0.74, 0.57), ("nDCG20", "Prec@R"): (0.94, 0.86),
    ("nDCG20", "MAP"): (0.95, 0.88), ("MAP", "EXAM"): (0.75, 0.57), ("MAP", "Prec@R"): (0.94, 0.86),
    ("Prec@R", "EXAM"): (0.74, 0.56),
}


def table4_path():
    """The bundled Table 4 (TSV: system, then one column per measure)."""
    return resources.files("qascore") / "demo_data" / "exam" / "car_y3_table4.tsv"


def read_table4() -> dict[str, Leaderboard]:
    """measure -> leaderboard of the 16 systems' printed scores."""
    return read_leaderboard_table(table4_path())


@dataclass
class Table1Check:
    row: str
    column: str
    paper_spearman: float
    paper_kendall: float
    spearman: float  # expected 10-repeat mean (mean over all repeats)
    kendall: float
    spearman_se: float  # standard error of a 10-repeat mean
    kendall_se: float
    first10_spearman: float  # the first ten repeats, as the paper reports them
    first10_kendall: float

    def reproduces(self, which: str) -> bool:
        paper, ours, se = ((self.paper_spearman, self.spearman, self.spearman_se) if which == "spearman"
                           else (self.paper_kendall, self.kendall, self.kendall_se))
        return abs(paper - ours) <= 2 * se + 0.005


def recompute_table1(*, repeats: int = 2000, seed: int = 0) -> list[Table1Check]:
    boards = read_table4()
    out = []
    for (row, col), (p_rho, p_tau) in TABLE1.items():
        r = leaderboard_correlation(boards[row], boards[col], repeats=repeats, ties="exact", seed=seed)
        out.append(Table1Check(row, col, p_rho, p_tau, r.spearman_mean, r.kendall_mean,
                               r.spearman_std / math.sqrt(10), r.kendall_std / math.sqrt(10),
                               float(r.spearman[:10].mean()), float(r.kendall[:10].mean())))
    return out


def table1_report(checks: list[Table1Check]) -> str:
    lines = [f"{'pair':<18} {'Spearman paper/ours':>22} {'Kendall paper/ours':>22}  reproduces"]
    for c in checks:
        ok = [w for w in ("spearman", "kendall") if c.reproduces(w)]
        lines.append(f"{c.row + ' / ' + c.column:<18} {c.paper_spearman:+.2f} / {c.spearman:+.3f}±{c.spearman_se:.3f}"
                     f"   {c.paper_kendall:+.2f} / {c.kendall:+.3f}±{c.kendall_se:.3f}  {', '.join(ok) or 'neither'}")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Recompute the EXAM paper's Table 1 from its Table 4.")
    parser.add_argument("--repeats", type=int, default=2000, help="random tie-breaks (default 2000)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    print(table1_report(recompute_table1(repeats=args.repeats, seed=args.seed)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
