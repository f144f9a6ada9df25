"""Pure parts of research/ava/table5.py (the AVA run itself is a study, not a test)."""
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "research" / "ava"))
import table5  # noqa: E402


def test_references_leave_the_candidate_out():
    groups = np.array([1, 1, 1, 2, 2])
    sentences = ["a", "b", "c", "d", "e"]
    labels = np.array([1, 0, 1, 1, 0])
    assert table5.references_for(groups, sentences, labels) == ["c", "a", "a", "d", "d"]


def test_bm25_hand_computed():
    groups = np.array([0, 0])
    questions = ["cat food", "cat food"]
    sentences = ["cat cat dog", "food"]
    got = table5.bm25_scores(groups, questions, sentences, k1=1.2, b=0.75)
    idf = math.log(1 + (2 - 1 + 0.5) / (1 + 0.5))  # each query word is in one of the two sentences
    avgdl = 2.0
    cat = idf * 2 * 2.2 / (2 + 1.2 * (1 - 0.75 + 0.75 * 3 / avgdl))
    food = idf * 1 * 2.2 / (1 + 1.2 * (1 - 0.75 + 0.75 * 1 / avgdl))
    np.testing.assert_allclose(got, [cat, food], rtol=1e-12)
    assert table5.bm25_scores(np.array([0]), ["x"], [""])[0] == 0.0


# --- AS2 files: TREC-QA JSONL and WikiQA TSV ---------------------------------------------------

import json  # noqa: E402

import pytest  # noqa: E402

from qascore.ava.data import WIKIQA_COLUMNS, read_as2  # noqa: E402
from qascore.errors import InputFormatError  # noqa: E402

HEADER = "\t".join(WIKIQA_COLUMNS)


def _tsv(tmp_path, rows, header=HEADER):
    path = tmp_path / "wikiqa.tsv"
    path.write_text("\n".join([header] + ["\t".join(r) for r in rows]) + "\n", encoding="utf-8")
    return path


def _row(qid, question, sentence, label):
    return [qid, question, "D" + qid, "title", f"{qid}-s", sentence, label]


def test_wikiqa_tsv_groups_rows_by_question_id(tmp_path):
    path = _tsv(tmp_path, [_row("Q1", "who?", "a", "0"), _row("Q1", "who?", "b", "1"), _row("Q2", "what?", "c", "0")])
    got = read_as2(path)
    assert [(e.question, e.sentences, e.labels, e.line) for e in got] == [
        ("who?", ["a", "b"], [0, 1], 2), ("what?", ["c"], [0], 4)]


def test_table5_keeps_questions_with_a_correct_sentence(tmp_path):
    path = _tsv(tmp_path, [_row("Q1", "who?", "a", "0"), _row("Q2", "what?", "b", "1"), _row("Q2", "what?", "c", "0")])
    groups, questions, sentences, labels = table5.load_as2(path)
    assert groups.tolist() == [0, 0] and questions == ["what?", "what?"] and sentences == ["b", "c"]
    assert labels.tolist() == [1, 0]
    jsonl = tmp_path / "as2.jsonl"
    jsonl.write_text(json.dumps({"question": "what?", "candidates": [{"sentence": "b", "label": 1}, {"sentence": "c", "label": 0}]})
                     + "\n" + json.dumps({"question": "who?", "candidates": [{"sentence": "a", "label": 0}]}) + "\n")
    assert [x.tolist() if hasattr(x, "tolist") else x for x in table5.load_as2(jsonl)] == \
        [groups.tolist(), questions, sentences, labels.tolist()]


@pytest.mark.parametrize("rows, header, message", [
    ([], "QuestionID\tQuestion", "wikiqa.tsv:1: expected the WikiQA header row"),
    ([_row("Q1", "who?", "a", "0")[:5]], HEADER, "wikiqa.tsv:2: expected 7 tab-separated columns, got 5"),
    ([_row("Q1", "who?", "a", "yes")], HEADER, "wikiqa.tsv:2: Label must be 0 or 1, got 'yes'"),
    ([_row("Q1", "who?", "a", "0"), _row("Q1", "whom?", "b", "1")], HEADER, "wikiqa.tsv:3: question Q1 has another text than on line 2"),
])
def test_wikiqa_tsv_errors_name_file_and_line(tmp_path, rows, header, message):
    with pytest.raises(InputFormatError, match=message):
        read_as2(_tsv(tmp_path, rows, header=header))


def test_real_wikiqa_test_split(restricted_data):
    questions = read_as2(restricted_data / "ava" / "wikiqa" / "WikiQA-test.tsv")
    assert len(questions) == 633 and sum(len(q.labels) for q in questions) == 6165
    assert sum(any(q.labels) for q in questions) == 243  # the usual "filtered" test set
