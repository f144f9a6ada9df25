"""TREC 2024 RAG nugget scores: both shared metric files reproduced exactly (602 rows + aggregates)."""
import json
from fractions import Fraction

import pytest

from qascore.cli import main
from qascore.nuggets.formats import RagNugget, RagTopic, read_rag_assignments
from qascore.nuggets.rag import SCORE_KEYS, rag_scores, topic_scores

RUNS = [
    ("assignments.baseline_rag24.test_gpt4o_top20.jsonl", "metrics.baseline_rag24.test_gpt_4o_top20.jsonl"),
    ("assignments.baseline_rag24.test_command-r-plus_top20.jsonl", "metrics.baseline_rag24.test_command-r-plus_top20.jsonl"),
]


@pytest.mark.parametrize("assignments,metrics", RUNS)
def test_metric_files_reproduced_exactly(shared_data, assignments, metrics):
    base = shared_data / "nuggets" / "rag24"
    scores = rag_scores(read_rag_assignments(base / assignments))
    expected = [json.loads(line) for line in (base / metrics).read_text(encoding="utf-8").splitlines()]
    got = [json.loads(line) for line in scores.lines()]
    assert len(got) == len(expected) == 302
    assert got == expected  # float equality, key order too
    assert [list(r) for r in got] == [list(r) for r in expected]
    assert scores.malformed_labels["importance"]["failed"] == 10


@pytest.mark.parametrize("assignments,metrics", RUNS)
def test_cli_writes_the_metric_file_byte_for_byte(shared_data, tmp_path, assignments, metrics):
    base = shared_data / "nuggets" / "rag24"
    out = tmp_path / "m.jsonl"
    assert main(["nuggets", "rag", "-p", str(base / assignments), "-o", str(out)]) == 0
    assert out.read_bytes() == (base / metrics).read_bytes()
    old = tmp_path / "old.jsonl"  # the old spellings stay as hidden aliases
    assert main(["nuggets", "rag", "--assignments", str(base / assignments), "--output", str(old)]) == 0
    assert old.read_bytes() == out.read_bytes()


def _topic(*nuggets):
    return RagTopic("t", "", tuple(RagNugget(f"n{i}", imp, a) for i, (imp, a) in enumerate(nuggets)))


def test_hand_computed_topic_with_malformed_labels():
    topic = _topic(("vital", "support"), ("vital", "partial_support"), ("okay", "support"),
                   ("okay", "not_support"), ("failed", "support"), ("vital", "weird_label"))
    s = topic_scores(topic)
    assert s["vital_score"] == pytest.approx(1.5 / 3) and s["strict_vital_score"] == pytest.approx(1 / 3)
    # weighted: (sum vital + 0.5 sum okay) / (|V| + 0.5 |O|); the 'failed' nugget is left out
    assert s["weighted_score"] == pytest.approx((1.5 + 0.5 * 1) / (3 + 1))
    assert s["strict_weighted_score"] == pytest.approx((1 + 0.5) / 4)
    # all: every nugget in the denominator, the malformed-importance one included
    assert s["all_score"] == pytest.approx(3.5 / 6) and s["strict_all_score"] == pytest.approx(3 / 6)


def test_empty_topic_and_exact_mean():
    assert topic_scores(_topic()) == {k: 0.0 for k in SCORE_KEYS}
    topics = [_topic(("vital", "support")), _topic(("vital", "not_support")), _topic(("okay", "partial_support"))]
    topics = [RagTopic(str(i), t.answer_text, t.nuggets) for i, t in enumerate(topics)]
    mean = rag_scores(topics).mean
    assert mean["all_score"] == float(sum(Fraction(x) for x in (1.0, 0.0, 0.5)) / 3)
    assert rag_scores([]).mean["vital_score"] == 0.0
