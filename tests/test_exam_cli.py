"""``qascore exam`` in the shared dialect: -q, --articles, --gold, --official, -o, --json/--jsonl,
--per-example, --n-jobs, --progress, the hidden --records alias, stdin, strict JSON, missing extras."""
import gzip
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import qascore
from qascore.cli import main
from qascore.cli.demo import demo_data_dir

DEMO = demo_data_dir() / "exam"
SYSTEMS = [str(DEMO / "systems" / f"{n}.jsonl") for n in ("good-system", "partial-system", "off-topic-system")]
ROOT = Path(__file__).resolve().parents[1]


def exam_args(*extra):
    args = ["exam", "-q", str(DEMO / "questions.jsonl")]
    for s in SYSTEMS:
        args += ["--articles", s]
    return args + list(extra)


def test_text_output_with_gold_official_and_plot(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    graded = tmp_path / "graded.jsonl.gz"
    rc = main(exam_args("--gold", str(DEMO / "gold.jsonl"), "--official", str(DEMO / "official.txt"),
                        "--graded", str(graded), "--plot", str(tmp_path / "p.png"), "--n-jobs", "1"))
    out = capsys.readouterr().out
    assert rc == 0
    assert "good-system                    1.000" in out and "EXAM vs official: Spearman +1.000" in out
    assert "ROUGE-1 F1 vs official" in out and "gold articles                  1.000  0.000         1.000" in out
    with gzip.open(graded, "rt", encoding="utf-8") as fh:
        first = json.loads(fh.readline())
    assert isinstance(first[0], str) and first[1][0]["exam_grades"][0]["llm"] == "qascore-lexical"
    assert (tmp_path / "p.png").read_bytes()[:4] == b"\x89PNG"


def test_json_document_is_strict_and_per_example_holds_the_records(tmp_path, capsys):
    out = tmp_path / "out.json"
    # Gold that answers nothing: n-EXAM (gold) is undefined and must be written as null, not NaN.
    empty_gold = tmp_path / "gold.jsonl"
    empty_gold.write_text('{"squid": "x:photosynthesis", "paragraphs": []}\n', encoding="utf-8")
    rc = main(exam_args("--gold", str(empty_gold), "--json", "--per-example", "-o", str(out)))
    assert rc == 0 and capsys.readouterr().out == ""
    text = out.read_text(encoding="utf-8")
    doc = json.loads(text, parse_constant=lambda c: pytest.fail(f"non-strict JSON constant {c}"))
    assert [s["system"] for s in doc["systems"]] == ["good-system", "partial-system", "off-topic-system"]
    assert doc["systems"][1]["exam"] == pytest.approx(2 / 9) and doc["systems"][1]["n_exam_gold"] is None
    assert doc["gold"] == {"exam": 0.0, "exam_stderr": 0.0, "n_exam_gold": None}
    assert len(doc["records"]) == 3 * 8
    assert {"system", "query_id", "question_id", "answer", "confidence", "correct", "has_article"} == set(doc["records"][0])
    assert doc["signature"].startswith("qascore:exam|solver:lexical")


def test_jsonl_writes_records_then_the_summary(capsys):
    assert main(exam_args("--jsonl", "--per-example")) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(lines) == 3 * 8 + 1
    assert lines[0]["system"] == "good-system" and "systems" in lines[-1]
    assert main(exam_args("--jsonl")) == 0
    only = capsys.readouterr().out.splitlines()
    assert len(only) == 1 and json.loads(only[0])["queries"] == 3


def test_per_example_text_lists_every_record(capsys):
    assert main(exam_args("--per-example")) == 0
    out = capsys.readouterr().out
    assert out.startswith("system\tquery_id\tquestion_id\tanswer\tconfidence\tcorrect\thas_article\n")
    assert out.count("\npartial-system\t") == 8


def test_hidden_records_alias_still_writes_the_records_file(tmp_path, capsys):
    records = tmp_path / "records.jsonl"
    rc = main(exam_args("--records", str(records)))
    assert rc == 0 and "good-system" in capsys.readouterr().out
    lines = [json.loads(line) for line in records.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == 3 * 8 and {"system", "query_id", "question_id", "answer", "correct"} <= set(lines[0])
    assert main(["exam", "--questions", str(DEMO / "questions.jsonl"), "--articles", SYSTEMS[0]]) == 0
    assert "--records" not in capsys.readouterr().out
    from qascore.cli import build_parser

    parser = build_parser()
    help_text = parser._subparsers._group_actions[0].choices["exam"].format_help()
    assert "--records" not in help_text and "--per-example" in help_text and "--n-jobs" in help_text


def test_progress_goes_to_stderr(capsys):
    assert main(exam_args("--progress")) == 0
    captured = capsys.readouterr()
    assert "qascore exam: grading 8 questions x 3 systems" in captured.err and "qascore exam" not in captured.out
    assert main(exam_args("--no-progress")) == 0
    assert capsys.readouterr().err == ""


def test_questions_from_stdin(tmp_path):
    # the child imports the qascore this test imported (the installed one in CI, src/ in a dev tree)
    env = {**os.environ, "PYTHONPATH": str(Path(qascore.__file__).resolve().parents[1])}
    cmd = [sys.executable, "-m", "qascore", "exam", "-q", "-", "--questions-format", "jsonl",
           "--articles", SYSTEMS[0], "--articles", SYSTEMS[1], "--json"]
    with open(DEMO / "questions.jsonl", "rb") as stdin:
        proc = subprocess.run(cmd, stdin=stdin, capture_output=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["systems"][0]["exam"] == 1.0 and doc["queries"] == 3


def test_articles_from_stdin_are_system_stdin(tmp_path, monkeypatch, capsys):
    import io

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(Path(SYSTEMS[1]).read_bytes())))
    rc = main(["exam", "-q", str(DEMO / "questions.jsonl"), "--articles", "-", "--articles-format", "original",
               "--json"])
    assert rc == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["systems"][0]["system"] == "stdin" and doc["systems"][0]["exam"] == pytest.approx(2 / 9)


@pytest.mark.parametrize("extra, message", [
    (["--solver", "magic"], "unknown solver 'magic'"),
    (["--qa-model", "reader"], "--qa-model applies to --solver qa"),
    (["--articles", str(DEMO / "gold.jsonl"), "--articles", str(DEMO / "gold.jsonl")], "duplicate system 'gold'"),
    (["--plot", "x.png"], "--plot needs --official"),
    (["-q", "-", "--articles", "-"], "only one input may be -"),
    (["--articles", "-", "--gold", "-", "--articles-format", "original"], "only one input may be -"),
    (["--official", str(DEMO / "questions.jsonl")], "questions.jsonl:1: expected 'system score [stderr]'"),
])
def test_errors_are_one_line_and_exit_2(extra, message, capsys):
    rc = main(["exam", "--questions", str(DEMO / "questions.jsonl"), *extra]
              + ([] if "--articles" in extra else ["--articles", str(DEMO / "gold.jsonl")]))
    err = capsys.readouterr().err
    assert rc == 2 and message in err and err.count("\n") == 1


def test_missing_matplotlib_is_named_before_any_work(tmp_path, monkeypatch, capsys):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "matplotlib" else real(name, *a))
    # The question bank does not exist: the extra must be reported first, before anything is read.
    rc = main(["exam", "-q", str(tmp_path / "missing.jsonl"), "--articles", SYSTEMS[0],
               "--official", str(DEMO / "official.txt"), "--plot", str(tmp_path / "p.png")])
    err = capsys.readouterr().err
    assert rc == 2 and 'pip install "qascore[plot]"' in err and "missing.jsonl" not in err
    assert not (tmp_path / "p.png").exists()


def test_failed_run_leaves_no_output_file(tmp_path, capsys):
    out = tmp_path / "out.json"
    out.write_text("old", encoding="utf-8")
    rc = main(exam_args("--solver", "onnx:model.onnx", "--json", "-o", str(out)))
    assert rc == 2 and out.read_text(encoding="utf-8") == "old"
    assert list(tmp_path.iterdir()) == [out]


def _hide_onnxruntime(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "onnxruntime" else real(name, *a))


def test_a_multiple_choice_bank_needs_no_judge_and_no_extra(monkeypatch, capsys):
    """The default judge (the shipped AVA model) grades free-text answers only: the demo's
    multiple-choice bank runs without onnxruntime, and its signature names the default judge."""
    _hide_onnxruntime(monkeypatch)
    rc = main(exam_args("--json"))
    assert rc == 0 and "|judge:ava-cascade|" in json.loads(capsys.readouterr().out)["signature"]


def test_free_text_without_the_onnx_extra_names_the_extra_and_the_judge_that_needs_nothing(tmp_path, monkeypatch,
                                                                                            capsys):
    questions = tmp_path / "questions.jsonl"
    questions.write_text(json.dumps({"query_id": "q", "question_id": "1", "question": "Where do penguins live?",
                                     "gold_answers": ["Antarctica"]}) + "\n", encoding="utf-8")
    articles = tmp_path / "A.jsonl"  # the system is the file's stem
    articles.write_text(json.dumps({"squid": "A:q", "title": "q", "paragraphs": [{"para_body": [
        {"text": "In Antarctica."}]}]}) + "\n", encoding="utf-8")
    _hide_onnxruntime(monkeypatch)
    rc = main(["exam", "-q", str(questions), "--articles", str(articles)])
    err = capsys.readouterr().err
    assert rc == 2 and 'pip install "qascore[onnx]"' in err and "--judge workbench needs nothing" in err
    rc = main(["exam", "-q", str(questions), "--articles", str(articles), "--judge", "workbench", "--json"])
    assert rc == 0 and json.loads(capsys.readouterr().out)["systems"] == [
        {"system": "A", "exam": 1.0, "exam_stderr": 0.0, "n_exam_gold": None, "n_exam_cover": 1.0,
         "n_exam_cover_stderr": 0.0}]


def test_progress_comes_on_sooner_when_a_model_judge_reads_free_text(monkeypatch):
    """On a terminal, stage messages show by default from 50,000 graded questions, or from 1,000
    when a model judge grades free-text answers (the string judges stay at 50,000)."""
    from types import SimpleNamespace

    from qascore.cli.exam import _show_progress
    from qascore.exam.records import ExamQuestion, QuestionBank
    from qascore.judges.matching import WorkbenchJudge

    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    free = QuestionBank([ExamQuestion("q", str(i), "why", gold_answers=("because",)) for i in range(100)])
    choice = QuestionBank([ExamQuestion("q", str(i), "which", {"a": "x", "b": "y"}, "a") for i in range(100)])
    model = object()  # any loaded judge; what matters is the spec it came from
    assert _show_progress(SimpleNamespace(progress=None, judge=None), free, model, 10)
    assert not _show_progress(SimpleNamespace(progress=None, judge=None), free, model, 9)
    assert not _show_progress(SimpleNamespace(progress=None, judge="workbench"), free, WorkbenchJudge(), 10)
    assert not _show_progress(SimpleNamespace(progress=None, judge=None), choice, None, 10)
    assert not _show_progress(SimpleNamespace(progress=False, judge=None), free, model, 500)
