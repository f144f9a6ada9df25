"""The constructed EXAM leaderboards: built from EVOUNA-NQ dev as documented, truths as counted."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "research" / "exam"))
from constructed_leaderboards import ACCURACIES, QUESTIONS_PER_QUERY, build, main  # noqa: E402


@pytest.fixture(scope="module")
def built(shared_data):
    return build(shared_data / "ava" / "evouna" / "NQ.json", seed=0)


def test_every_query_has_ten_questions_and_every_system_an_article(built):
    bank, articles, truth = built
    assert len(bank) == QUESTIONS_PER_QUERY * len(bank.query_ids) and len(bank.query_ids) >= 20
    assert sorted(truth) == sorted(articles.systems) and len(truth) == len(ACCURACIES)
    for system in articles.systems:
        per_query = articles.articles(system)
        assert set(per_query) == set(bank.query_ids)
        assert all(len(paragraphs) == QUESTIONS_PER_QUERY for paragraphs in per_query.values())


def test_true_accuracies_follow_the_drawing_probabilities(built):
    _, _, truth = built
    ordered = [truth[s] for s in sorted(truth)]
    assert all(abs(t - p) < 0.1 for t, p in zip(ordered, ACCURACIES))


def test_script_prints_one_row_per_solver_and_judge(shared_data, capsys):
    assert main([str(shared_data / "ava" / "evouna" / "NQ.json"), "--judges", "workbench,containment"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| lexical")]
    assert len(rows) == 6  # three free-text modes x two judges
