"""research/nuggets/idf_effect.py: a run's score alone and with other runs, per idf source."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "research" / "nuggets"))
from idf_effect import demo_table, rag_table  # noqa: E402


def rows_of(table: str) -> list[list[str]]:
    return [[c.strip() for c in line.strip("|").split("|")] for line in table.splitlines()[2:]]


def test_demo_scores_depend_on_company_only_with_runs_idf():
    table = demo_table()
    print("\n" + table)
    rows = rows_of(table)
    assert len(rows) == 12
    for _setting, idf, _run, alone, together in rows:
        if idf == "background":
            assert alone == together
    changed = [(s, r) for s, idf, r, a, t in rows if idf == "runs" and a != t]
    assert changed == [("descriptions, unigrams, threshold 0.5", "RUN-C")]  # 0.5234 alone, 0.6897 together


def test_rag24_scores_depend_on_company_only_with_runs_idf(shared_data):
    table = rag_table(shared_data / "nuggets" / "rag24")
    print("\n" + table)
    for idf, _run, alone, together, changed, *_ in rows_of(table):
        if idf == "background":
            assert alone == together and changed == "0 of 301"
        else:
            assert changed != "0 of 301"
