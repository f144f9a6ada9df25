"""Nugget assignment by a judge: each nugget against each answer sentence, the query as question."""
import json

import numpy as np

from qascore.cli import main
from qascore.judges import ContainmentJudge, Judge
from qascore.nuggets.formats import RagNugget, RagTopic, read_rag_assignments, write_rag_assignments
from qascore.nuggets.judged import judge_assignments
from qascore.nuggets.rag import rag_scores

TOPICS = [
    RagTopic("1", "Paris is the capital. It has the Louvre museum.",
             (RagNugget("the Louvre", "vital", "support"), RagNugget("Eiffel Tower", "okay", "support")),
             query="what is in paris"),
    RagTopic("2", "", (RagNugget("anything", "vital", "support"),), query="empty answer"),
]


class Recorder(Judge):
    name = "recorder"

    def __init__(self):
        self.threshold = 0.5
        self.calls: list = []

    def predict_proba(self, questions, references, candidates):
        self.calls.append(list(zip(questions, references, candidates)))
        return np.array([0.9 if "Louvre" in c and r == "the Louvre" else 0.2 for r, c in zip(references, candidates)])


def test_each_nugget_against_each_sentence_in_one_call():
    recorder = Recorder()
    topics, best = judge_assignments(TOPICS, recorder)
    assert recorder.calls == [[
        ("what is in paris", "the Louvre", "Paris is the capital."),
        ("what is in paris", "the Louvre", "It has the Louvre museum."),
        ("what is in paris", "Eiffel Tower", "Paris is the capital."),
        ("what is in paris", "Eiffel Tower", "It has the Louvre museum."),
    ]]
    assert [n.assignment for n in topics[0].nuggets] == ["support", "not_support"]
    assert [n.assignment for n in topics[1].nuggets] == ["not_support"]  # no sentence: nothing supports it
    assert best[0].tolist() == [0.9, 0.2] and best[1].tolist() == [0.0]
    assert [n.importance for n in topics[0].nuggets] == ["vital", "okay"] and topics[0].query == "what is in paris"


def test_containment_judge_assigns_and_scores():
    topics, _ = judge_assignments(TOPICS, ContainmentJudge())
    assert [n.assignment for n in topics[0].nuggets] == ["support", "not_support"]
    assert rag_scores(topics).per_topic[0]["all_score"] == 0.5
    assert "assigned_by:containment" in rag_scores(topics, judge=ContainmentJudge().signature()).signature


def test_query_round_trips_through_the_assignment_file(tmp_path):
    write_rag_assignments(TOPICS, tmp_path / "a.jsonl")
    assert [t.query for t in read_rag_assignments(tmp_path / "a.jsonl")] == ["what is in paris", "empty answer"]


def test_cli_rag_with_a_judge(tmp_path, capsys):
    write_rag_assignments(TOPICS, tmp_path / "a.jsonl")
    out, judged = tmp_path / "scores.jsonl", tmp_path / "judged.jsonl"
    assert main(["nuggets", "rag", "-p", str(tmp_path / "a.jsonl"), "--judge", "containment",
                 "--assignments-out", str(judged), "-o", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert rows[0]["all_score"] == 0.5 and rows[1]["all_score"] == 0.0
    assert [n.assignment for n in read_rag_assignments(judged)[0].nuggets] == ["support", "not_support"]


def test_real_rag24_run_judged_by_containment(shared_data):
    path = shared_data / "nuggets" / "rag24" / "assignments.baseline_rag24.test_gpt4o_top20.jsonl"
    topics = read_rag_assignments(path)
    judged, best = judge_assignments(topics, ContainmentJudge())
    assert len(judged) == 301 and all(t.query for t in topics)
    for topic, probs in zip(judged, best):
        assert [n.assignment == "support" for n in topic.nuggets] == (probs >= 0.5).tolist()
