"""TREC nugget formats: the real answer keys parse with the published counts, writers round-trip,
and every malformed line names file, line and what was expected."""
import json

import pytest

from qascore.errors import InputFormatError
from qascore.nuggets.formats import (
    AnswerKey, Judgements, Run, read_answer_key, read_judgements, read_rag_assignments, read_runs,
    write_answer_key, write_judgements, write_rag_assignments, write_run,
)

# (file, questions, nuggets, vital): the counts of the Nuggeteer paper's Table 1 / the OpenEphyra copies
KEYS = [
    ("trec12answers_definition", 50, 417, 207),
    ("trec13answers_other", 64, 580, 234),
    ("trec14answers_other", 75, 758, 308),
    ("trec14answers_relationship", 25, 223, 87),
    ("trec15answers_other", 75, 675, 254),
]


@pytest.mark.parametrize("name,questions,nuggets,vital", KEYS)
def test_real_answer_keys_have_published_counts(restricted_data, tmp_path, name, questions, nuggets, vital):
    key = read_answer_key(restricted_data / "nuggets" / "trec_qa" / name)
    assert not key.pyramid
    assert len(key) == questions
    assert sum(len(q.nuggets) for q in key) == nuggets
    assert sum(n.is_vital for q in key for n in q.nuggets) == vital
    write_answer_key(key, tmp_path / "k")
    again = read_answer_key(tmp_path / "k")
    assert again.questions == key.questions


def test_2003_header_is_the_question(restricted_data):
    key = read_answer_key(restricted_data / "nuggets" / "trec_qa" / "trec12answers_definition")
    q = key["1901"]
    assert q.header == "Who is Aaron Copland?"
    assert q.nugget("5").description == "american communist" and q.nugget("5").importance == "okay"


@pytest.mark.parametrize("name,questions", [("trec15answers_other_pyramid", 75), ("trec16answers_other_pyramid", 70)])
def test_pyramid_keys(restricted_data, tmp_path, name, questions):
    key = read_answer_key(restricted_data / "nuggets" / "trec_qa" / name)
    assert key.pyramid and len(key) == questions
    weights = [n.weight for q in key for n in q.nuggets]
    assert min(weights) == 0.0 and max(weights) == 1.0
    write_answer_key(key, tmp_path / "p")
    assert read_answer_key(tmp_path / "p").questions == key.questions


@pytest.mark.parametrize("text,message", [
    ("Qid 1: q\n1 1\tvital\n", r"k:2: expected '<qid> <nugget#>\\t<vital\|okay>"),
    ("Qid 1: q\n1 1\tsuper\tdesc\n", r"k:2: importance must be vital or okay, got 'super'"),
    ("Qid 1: q\n1 1\tvital\ta\n1 1\tokay\tb\n", r"k:3: duplicate nugget 1 of question 1 \(first on line 2\)"),
    ("Qid 1: q\n2 1\tvital\ta\n", r"k:2: nugget of question 2 outside its 'Qid 2:' block"),
    ("1\t1\tx\tdesc\n", r"k:1: pyramid weight must be a number, got 'x'"),
    ("1\t1\t-1\tdesc\n", r"k:1: pyramid weight must be finite and >= 0"),
    ("1\t1\t0.5\tdesc\nQid 2: q\n2 1\tvital\ta\n", r"k:3: key line in a pyramid file"),
    ("Qid : q\n", r"k:1: expected a header 'Qid <qid>: <text>'"),
    ("Qid 1: a\n\nQid 1: b\n", r"k:3: question 1 appears twice"),
])
def test_malformed_answer_key_lines(tmp_path, text, message):
    assert_malformed(read_answer_key, tmp_path / "k", text, message)


def assert_malformed(reader, path, text, message):
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputFormatError, match=message):
        reader(path)


def test_run_file_with_nil_and_several_tags(tmp_path):
    path = tmp_path / "run"
    path.write_text("1.1 tagA DOC1 some answer  text\n1.1 tagA NIL\n2.1 tagB DOC2 x\n\n", encoding="utf-8")
    runs = read_runs(path)
    assert set(runs) == {"tagA", "tagB"}
    items = runs["tagA"].responses["1.1"]
    assert [(r.item, r.docid, r.text) for r in items] == [(1, "DOC1", "some answer  text"), (2, "NIL", "")]
    write_run(runs["tagA"], tmp_path / "out")
    assert read_runs(tmp_path / "out")["tagA"].responses == runs["tagA"].responses


def test_malformed_run_line(tmp_path):
    assert_malformed(read_runs, tmp_path / "run", "1.1 tag DOC1 fine\n1.1 tag DOC2\n",
                     r"run:2: expected '<qid> <run-tag> <docid> <answer string>'")


JUDGED = """\
52.6 RUN-1 1 NYT1 first response
52.6 RUN-1 2 NYT2 second response 12
52.6 RUN-1 2 6
52.6 RUN-1 2 1
# a comment line
53.1 RUN-1 1 APW1 other question
"""


def test_two_part_judgement_layout(tmp_path):
    path = tmp_path / "j"
    path.write_text(JUDGED, encoding="utf-8")
    judged = read_judgements(path)
    assert judged.nuggets_of("RUN-1", "52.6", 2) == ["6", "1"]
    assert judged.nuggets_of("RUN-1", "52.6", 1) == []
    assert judged.runs["RUN-1"].responses["52.6"][1].text == "second response 12"
    write_judgements(judged, tmp_path / "out", comments={("RUN-1", "52.6", 2, "6"): "why"})
    again = read_judgements(tmp_path / "out")
    assert again.assigned == judged.assigned and again.runs["RUN-1"].responses == judged.runs["RUN-1"].responses
    assert "# why\n52.6 RUN-1 2 6\n" in (tmp_path / "out").read_text()


@pytest.mark.parametrize("text,message", [
    ("1 R 1 D a\n1 R 3 2\n", r"j:2: nugget line names item 3, which question 1 of run R does not list"),
    ("1 R 1 D a\n1 R 1 2\n1 R 2 D b\n", r"j:3: response item after the nugget lines of question 1, run R"),
    ("1 R x D a\n", r"j:1: item number must be an integer, got 'x'"),
    ("1 R 1\n", r"j:1: expected '<qid> <tag> <item#> <docid> <string>'"),
    ("1 R 1 D a\n1 R 1 D b\n", r"j:2: item 1 of question 1, run R repeats line 1"),
    ("1 R 1 D a\n1 R 1 2\n1 R 1 2\n", r"j:3: nugget 2 assigned twice to item 1"),
])
def test_malformed_judgement_lines(tmp_path, text, message):
    assert_malformed(read_judgements, tmp_path / "j", text, message)


def test_rag_jsonl_round_trip_and_errors(shared_data, tmp_path):
    topics = read_rag_assignments(shared_data / "nuggets" / "rag24" / "assignments.baseline_rag24.test_gpt4o_top20.jsonl")
    assert len(topics) == 301 and topics[0].nuggets[0].importance == "vital"
    write_rag_assignments(topics[:5], tmp_path / "r.jsonl")
    assert read_rag_assignments(tmp_path / "r.jsonl") == topics[:5]
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"qid": "1", "nuggets": [{"text": "a", "importance": "vital"}]}) + "\n", encoding="utf-8")
    with pytest.raises(InputFormatError, match=r"bad.jsonl:1: nuggets\[0\]: missing field 'assignment'"):
        read_rag_assignments(bad)
    bad.write_text('{"qid": "1", "nuggets": []}\n{"qid": "1", "nuggets": []}\n', encoding="utf-8")
    with pytest.raises(InputFormatError, match=r"bad.jsonl:2: topic 1 repeats line 1"):
        read_rag_assignments(bad)


def test_empty_files_are_empty_collections(tmp_path):
    path = tmp_path / "e"
    path.write_text("", encoding="utf-8")
    assert len(read_answer_key(path)) == 0
    assert read_runs(path) == {}
    assert read_judgements(path).runs == {}
    assert isinstance(AnswerKey({}), AnswerKey) and Judgements().runs == {} and Run("t").responses == {}
