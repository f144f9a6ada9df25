"""Nuggeteer on real assignments (TREC 2024 RAG, two runs): the study table of docs/nuggets.md."""
import sys
from pathlib import Path

import pytest

from qascore.nuggets.formats import read_rag_assignments

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "research" / "nuggets"))
from study import format_table, run_study, split_sentences  # noqa: E402


@pytest.fixture(scope="module")
def rows(shared_data):
    base = shared_data / "nuggets" / "rag24"
    a = read_rag_assignments(base / "assignments.baseline_rag24.test_gpt4o_top20.jsonl")
    b = read_rag_assignments(base / "assignments.baseline_rag24.test_command-r-plus_top20.jsonl")
    return run_study(a, b, "gpt4o", "command-r")


def test_nuggeteer_with_judgements_beats_pourpre_and_descriptions_on_f1(rows):
    print("\n" + format_table(rows))
    by = {(r.method, r.direction): r for r in rows}
    for direction in ("gpt4o->command-r", "command-r->gpt4o"):
        learned = by["nuggeteer (judgements)", direction]
        assert learned.f1 > by["pourpre (idf)", direction].f1
        assert learned.f1 > by["nuggeteer (descriptions)", direction].f1
        assert learned.rmse < by["containment", direction].rmse
        # containment is precise but misses most nuggets
        assert by["containment", direction].precision > learned.precision
        assert by["containment", direction].recall < 0.2
        for r in rows:
            assert 0 <= r.precision <= 1 and 0 <= r.recall <= 1 and r.rmse >= 0


def test_sentence_split():
    assert split_sentences("A b. C d! E?  F") == ["A b.", "C d!", "E?", "F"]
    assert split_sentences("") == [] and split_sentences("no end") == ["no end"]
    assert split_sentences("e.g. this") == ["e.g.", "this"]  # a plain splitter: abbreviations split too
