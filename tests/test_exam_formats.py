"""Question-bank and article readers, the graded-format writer, and their errors on bad input."""
import gzip
import json

import pytest

from qascore.errors import InputFormatError
from qascore.exam.articles import (
    read_articles, read_car_run, read_original_jsonl, read_paragraph_collection, read_text_dir,
    read_workbench_paragraphs, write_original_jsonl,
)
from qascore.exam.records import Articles, ExamQuestion, QuestionBank
from qascore.exam.questions import read_question_bank, write_simple_jsonl


def write_lines(path, records):
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "wt", encoding="utf-8") as fh:
        for r in records:
            fh.write((r if isinstance(r, str) else json.dumps(r)) + "\n")
    return path


TQA = [{"globalID": "L_0432", "questions": {"nonDiagramQuestions": {
    "NDQ_1": {"beingAsked": {"processedText": "Who proposed evolution by natural selection?"},
              "answerChoices": {"a": {"processedText": "Darwin"}, "b": {"processedText": "Newton"}},
              "correctAnswer": {"processedText": "a."}}},
    "diagramQuestions": {"DQ_1": {"beingAsked": {"processedText": "ignored"}, "answerChoices": {},
                                  "correctAnswer": {"processedText": "a"}}}}}]


def test_tqa_json(tmp_path):
    path = tmp_path / "tqa.json"
    path.write_text(json.dumps(TQA), encoding="utf-8")
    bank = read_question_bank(path)
    (q,) = list(bank)
    assert (q.query_id, q.question_id, q.key, q.choices["a"]) == ("L_0432", "NDQ_1", "a", "Darwin")


def test_tqa_key_not_among_choices(tmp_path):
    bad = json.loads(json.dumps(TQA))
    bad[0]["questions"]["nonDiagramQuestions"]["NDQ_1"]["correctAnswer"]["processedText"] = "e"
    path = tmp_path / "tqa.json"
    path.write_text(json.dumps(bad), encoding="utf-8")
    with pytest.raises(InputFormatError, match="answer key 'e' is not among the choices"):
        read_question_bank(path)


def test_workbench_bank(tmp_path):
    path = write_lines(tmp_path / "bank.jsonl.gz", [
        {"query_id": "q1", "facet_id": None, "test_collection": "x", "query_text": "penguins",
         "items": [{"question_id": "q1/1", "question_text": "Where do penguins live?", "gold_answers": ["Antarctica"]}]}])
    (q,) = list(read_question_bank(path))
    assert q.gold_answers == ("Antarctica",) and not q.is_multiple_choice


def test_workbench_bank_without_gold_is_an_error(tmp_path):
    path = write_lines(tmp_path / "bank.jsonl", [
        {"query_id": "q1", "items": [{"question_id": "1", "question_text": "Why?"}]}])
    with pytest.raises(InputFormatError, match=r"bank.jsonl:1: .*neither answer choices nor gold answers"):
        read_question_bank(path, "workbench")


def test_simple_jsonl_round_trip_and_errors(tmp_path):
    bank = QuestionBank([ExamQuestion("q1", "1", "Q?", {"a": "x", "b": "y"}, "b"),
                         ExamQuestion("q1", "2", "Free?", gold_answers=("z",))])
    path = tmp_path / "bank.jsonl"
    write_simple_jsonl(bank, path)
    assert list(read_question_bank(path)) == list(bank)
    write_lines(path, [{"query_id": "q1", "question_id": "1", "question": "Q?", "choices": {"a": "x"}, "key": "a"},
                       {"query_id": "q1", "question_id": "1", "question": "Q?", "choices": {"a": "x"}, "key": "a"}])
    with pytest.raises(InputFormatError, match="duplicate question id '1' in query 'q1'"):
        read_question_bank(path)
    write_lines(path, [{"query_id": "q1", "question_id": "1", "question": "Q?", "choices": {"a": "x"}, "key": "c"}])
    with pytest.raises(InputFormatError, match=r"bank.jsonl:1: .*'c' is not among the choices"):
        read_question_bank(path)
    write_lines(path, ['{"query_id": "q1"'])
    with pytest.raises(InputFormatError, match=r"bank.jsonl:1: invalid JSON"):
        read_question_bank(path, "jsonl")


def test_original_articles(tmp_path):
    path = write_lines(tmp_path / "sys-a.jsonl", [
        {"squid": "tqa2:L_0432", "title": "Darwin", "paragraphs": [
            {"para_body": [{"text": "Darwin proposed "}, {"text": "natural selection."}]}, {"para_body": []}]}])
    arts = read_articles(path)
    assert arts.systems == ["sys-a"]
    assert arts.articles("sys-a") == {"L_0432": ["Darwin proposed natural selection.", ""]}
    write_lines(path, [{"squid": "tqa2:L_1", "paragraphs": []}, {"squid": "tqa2:L_1", "paragraphs": []}])
    with pytest.raises(InputFormatError, match=r"sys-a.jsonl:2: duplicate article"):
        read_original_jsonl(path)


def test_write_original_round_trip(tmp_path):
    arts = Articles({"s": {"q1": ["p one.", "p two."], "q2": []}})
    write_original_jsonl(arts, "s", tmp_path / "s.jsonl")
    assert read_original_jsonl(tmp_path / "s.jsonl").articles("s") == arts.articles("s")


def test_car_run_top_k_and_errors(tmp_path):
    paras = write_lines(tmp_path / "paras.tsv", ["p1\tfirst", "p2\tsecond", "p3\tthird"])
    collection = read_paragraph_collection(paras)
    run = write_lines(tmp_path / "run.txt", ["tqa2:L_1 Q0 p3 3 1.0 sysA", "tqa2:L_1 Q0 p1 1 3.0 sysA",
                                             "tqa2:L_1 Q0 p2 2 2.0 sysA", "tqa2:L_1 Q0 p2 1 5.0 sysB"])
    arts = read_car_run(run, collection, top_k=2, strip_query_prefix=True)
    assert arts.articles("sysA") == {"L_1": ["first", "second"]}
    assert arts.articles("sysB") == {"L_1": ["second"]}
    assert read_articles(run, paragraphs=collection).articles("sysB") == {"tqa2:L_1": ["second"]}
    write_lines(run, ["q Q0 p9 1 1.0 s"])
    with pytest.raises(InputFormatError, match=r"run.txt:1: paragraph 'p9' is not in the paragraph collection"):
        read_car_run(run, collection)
    write_lines(run, ["q Q0 p1 1 1.0 s", "q Q0 p1 2 1.0 s"])
    with pytest.raises(InputFormatError, match="run.txt:2: duplicate paragraph"):
        read_car_run(run, collection)
    with pytest.raises(ValueError, match="needs a paragraph collection"):
        read_articles(run)
    write_lines(paras, ["p1\tx", "p1\ty"])
    with pytest.raises(InputFormatError, match="paras.tsv:2: duplicate paragraph id"):
        read_paragraph_collection(paras)


def test_workbench_paragraphs(tmp_path):
    def para(pid, text, rankings):
        return {"paragraph_id": pid, "text": text, "paragraph": "",
                "paragraph_data": {"judgments": [], "rankings": rankings}, "exam_grades": None}
    path = write_lines(tmp_path / "paras.jsonl.gz", [["q1", [
        para("p1", "one", [{"method": "m1", "paragraph_id": "p1", "rank": 2, "score": 1.0},
                           {"method": "m2", "paragraph_id": "p1", "rank": 1, "score": 1.0}]),
        para("p2", "two", [{"method": "m1", "paragraph_id": "p2", "rank": 1, "score": 2.0}])]]])
    arts = read_articles(path)
    assert arts.articles("m1") == {"q1": ["two", "one"]}
    assert read_workbench_paragraphs(path, top_k=1).articles("m1") == {"q1": ["two"]}


def test_text_dir(tmp_path):
    d = tmp_path / "mysys"
    d.mkdir()
    (d / "q1.txt").write_text("Para one.\n\nPara two\nstill two.\n", encoding="utf-8")
    (d / "q2.txt").write_text("", encoding="utf-8")
    arts = read_articles(d)
    assert arts.articles("mysys") == {"q1": ["Para one.", "Para two\nstill two."], "q2": []}
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(InputFormatError, match="no <query_id>.txt files"):
        read_text_dir(empty)


def test_duplicate_system_on_merge():
    a = Articles({"s": {"q": []}})
    with pytest.raises(ValueError, match="duplicate system 's'"):
        a.merge(Articles({"s": {"q2": []}}))
