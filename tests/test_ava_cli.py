"""``qascore ava``: score (JSONL records or aligned files, stdin), eval (strict JSON), extras, old spellings."""
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import qascore
from qascore.ava import default_linear_model, load_jsonl_triples
from qascore.cli import main as cli_main

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "src" / "qascore" / "demo_data" / "ava_demo.jsonl"


def _strict_json(text: str):
    """json.loads that refuses NaN / Infinity (Python's json accepts them by default)."""
    def refuse(name):
        raise ValueError(f"not strict JSON: {name}")
    return json.loads(text, parse_constant=refuse)


def _lines(text: str) -> list:
    return [_strict_json(line) for line in text.splitlines()]


def _expected_scores(path=DEMO) -> list:
    triples, _ = load_jsonl_triples(path)
    p = default_linear_model().predict_proba(triples.questions, triples.references, triples.candidates)
    return [round(float(x), 6) for x in p]


@pytest.fixture()
def aligned(tmp_path):
    """The demo triples as aligned files: questions and candidates as plain lines, references as
    JSONL (a reference may be a list); --format auto tells them apart by suffix."""
    records = [json.loads(line) for line in DEMO.read_text(encoding="utf-8").splitlines()]
    paths = {"q.txt": tmp_path / "q.txt", "r.txt": tmp_path / "r.jsonl", "p.txt": tmp_path / "p.txt"}
    paths["q.txt"].write_text("".join(r["question"] + "\n" for r in records), encoding="utf-8")
    paths["r.txt"].write_text("".join(json.dumps({"reference": r["reference"]}) + "\n" for r in records), encoding="utf-8")
    paths["p.txt"].write_text("".join(r["candidate"] + "\n" for r in records), encoding="utf-8")
    return records, paths


def test_score_jsonl_records_to_a_file(tmp_path, capsys):
    out = tmp_path / "scored.jsonl"
    assert cli_main(["ava", "score", str(DEMO), "-o", str(out), "--model", "linear", "--label-field", "judged"]) == 0
    lines = _lines(out.read_text())
    assert [line["score"] for line in lines] == _expected_scores()
    assert lines[0]["system"] == "sys_a" and "label" in lines[0]  # the input records are kept
    threshold = default_linear_model().threshold
    assert [line["judged"] for line in lines] == [int(s >= threshold) for s in _expected_scores()]
    assert "scored 8 triples; judged = score >= 0.36; qascore:ava-linear|" in capsys.readouterr().err


def test_score_labels_at_the_threshold_and_keeps_the_inputs_label(tmp_path, capsys):
    """--threshold sets the label's threshold (and goes into the signature); a record that holds the
    output's label field already is an error, never overwritten."""
    out = tmp_path / "scored.jsonl"
    assert cli_main(["ava", "score", str(DEMO), "-o", str(out), "--model", "linear"]) == 2
    err = capsys.readouterr().err
    assert "record 1 already has a field 'label'" in err and "--label-field" in err and not out.exists()
    assert cli_main(["ava", "score", str(DEMO), "-o", str(out), "--model", "linear", "--label-field", "judged",
                     "--threshold", "0.9"]) == 0
    lines = _lines(out.read_text())
    assert [line["judged"] for line in lines] == [int(s >= 0.9) for s in _expected_scores()]
    assert "threshold:0.90" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stop:
        cli_main(["ava", "score", str(DEMO), "--model", "linear", "--threshold", "1.5"])
    assert stop.value.code == 2 and "must be a number from 0 to 1" in capsys.readouterr().err


def test_score_shipped_model(tmp_path):
    pytest.importorskip("onnxruntime")
    out = tmp_path / "scored.jsonl"
    assert cli_main(["ava", "score", str(DEMO), "-o", str(out), "--device", "cpu", "--label-field", "judged"]) == 0
    lines = _lines(out.read_text())
    assert len(lines) == 8 and all(0 <= line["score"] <= 1 for line in lines)


def test_score_from_stdin():
    # the child imports the qascore this test imported (the installed one in CI, src/ in a dev tree)
    env = {**os.environ, "PYTHONPATH": str(Path(qascore.__file__).resolve().parents[1])}
    done = subprocess.run([sys.executable, "-m", "qascore", "ava", "score", "-", "--model", "linear",
                           "--label-field", "judged"],
                          input=DEMO.read_bytes(), capture_output=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr.decode()
    assert [line["score"] for line in _lines(done.stdout.decode())] == _expected_scores()


def test_score_aligned_files(aligned, capsys):
    records, paths = aligned
    assert cli_main(["ava", "score", "-q", str(paths["q.txt"]), "-r", str(paths["r.txt"]), "-p", str(paths["p.txt"]),
                     "--model", "linear"]) == 0
    lines = _lines(capsys.readouterr().out)
    assert [set(line) for line in lines] == [{"question", "reference", "candidate", "score", "label"}] * len(records)
    assert [line["candidate"] for line in lines] == [r["candidate"] for r in records]
    assert [line["reference"] for line in lines] == [r["reference"] for r in records]
    assert [line["score"] for line in lines] == _expected_scores()


def test_score_aligned_jsonl_with_reference_lists_and_stdin(tmp_path, monkeypatch, capsys):
    import io

    (tmp_path / "q.jsonl").write_text('{"question": "who wrote hamlet"}\n{"question": "capital of france"}\n')
    (tmp_path / "r.jsonl").write_text('{"answers": ["William Shakespeare", "Shakespeare"]}\n{"answers": "Paris"}\n')
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b'{"prediction": "Shakespeare"}\n{"prediction": "Lyon"}\n')))
    assert cli_main(["ava", "score", "-q", str(tmp_path / "q.jsonl"), "-r", str(tmp_path / "r.jsonl"), "-p", "-",
                     "--format", "jsonl", "--ref-field", "answers", "--model", "linear"]) == 0
    lines = _lines(capsys.readouterr().out)
    p = default_linear_model().predict_proba(["who wrote hamlet", "capital of france"],
                                             [["William Shakespeare", "Shakespeare"], "Paris"], ["Shakespeare", "Lyon"])
    assert lines[0]["reference"] == ["William Shakespeare", "Shakespeare"]
    assert [line["score"] for line in lines] == [round(float(x), 6) for x in p]


def test_score_tsv_header_needs_a_flag(tmp_path, capsys):
    for name, header, text in (("q.tsv", "id\tquestion", "1\twho wrote hamlet"), ("r.tsv", "id\treference", "1\tShakespeare"),
                               ("p.tsv", "id\tprediction", "1\tShakespeare")):
        (tmp_path / name).write_text(f"{header}\n{text}\n")
    argv = ["ava", "score", "-q", str(tmp_path / "q.tsv"), "-r", str(tmp_path / "r.tsv"), "-p", str(tmp_path / "p.tsv"),
            "--model", "linear"]
    assert cli_main(argv) == 2
    assert "q.tsv:1: the first line looks like a header" in capsys.readouterr().err
    assert cli_main(argv + ["--tsv-header"]) == 0
    [line] = _lines(capsys.readouterr().out)
    assert line["question"] == "who wrote hamlet" and line["candidate"] == "Shakespeare"


def test_score_usage_errors(aligned, tmp_path, capsys):
    _, paths = aligned
    (tmp_path / "short.txt").write_text("only one\n")
    cases = [
        (["-q", str(paths["q.txt"]), "-r", str(paths["r.txt"]), "-p", str(tmp_path / "short.txt")],
         "q.txt has 8 examples but " + str(tmp_path / "short.txt") + " has 1"),
        ([str(DEMO), "-q", str(paths["q.txt"])], "give either INPUT"),
        (["-q", str(paths["q.txt"])], "give INPUT"),
        (["-q", "-", "-r", "-", "-p", str(paths["p.txt"])], "only one of -q / -r / -p may be -"),
    ]
    for argv, message in cases:
        assert cli_main(["ava", "score", *argv, "--model", "linear"]) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1


def test_score_json_document_and_old_threads_spelling(capsys):
    assert cli_main(["ava", "score", str(DEMO), "--model", "linear", "--json", "--threads", "1",
                     "--label-field", "judged"]) == 0
    document = _strict_json(capsys.readouterr().out)
    assert document["n"] == 8 and [r["score"] for r in document["examples"]] == _expected_scores()
    assert document["signature"].startswith("qascore:ava-linear|")
    assert cli_main(["ava", "score", str(DEMO), "--model", "linear", "--n-jobs", "2", "--progress",
                     "--label-field", "judged"]) == 0
    out, err = capsys.readouterr()
    assert len(_lines(out)) == 8 and "ava 8 triples (" in err  # streamed: a running count, no total


def test_threads_is_hidden_from_help(capsys):
    with pytest.raises(SystemExit):
        cli_main(["ava", "score", "--help"])
    text = capsys.readouterr().out
    assert "--n-jobs" in text and "--threads" not in text


def test_eval_json_and_text(tmp_path, capsys):
    assert cli_main(["ava", "eval", str(DEMO), "--json", "--model", "linear"]) == 0
    report = _strict_json(capsys.readouterr().out)
    assert report["pointwise"]["n"] == 8 and set(report["systemwise"]["gold"]) == {"sys_a", "sys_b"}
    out = tmp_path / "report.txt"
    assert cli_main(["ava", "eval", str(DEMO), "--model", "linear", "-o", str(out)]) == 0
    text = out.read_text()
    assert text.startswith("point-wise (threshold") and "qascore:ava-linear|" in text


def _evouna_file(tmp_path):
    """A small EVOUNA file: '/'-separated gold aliases, an improper question and an unjudged answer."""
    base = {"answer_fid": "Paris", "judge_fid": True, "answer_gpt35": "It is Lyon.", "judge_gpt35": False,
            "answer_chatgpt": "The capital is Paris.", "judge_chatgpt": True, "answer_gpt4": "Marseille",
            "judge_gpt4": False, "answer_newbing": "Paris, France", "judge_newbing": None, "improper": False}
    records = [{"question": f"capital of france {i}", "golden_answer": "City of Light / Paris", **base}
               for i in range(12)]
    records.append({**records[0], "question": "an improper one", "improper": True})
    path = tmp_path / "NQ.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    return path


def test_eval_reads_evouna_aliases_and_says_what_it_left_out(tmp_path, capsys):
    path = _evouna_file(tmp_path)
    assert cli_main(["ava", "eval", str(path), "--split", "all", "--json", "--model", "containment"]) == 0
    captured = capsys.readouterr()
    report = _strict_json(captured.out)
    # against the aliases, "Paris" is contained in every right answer and no wrong one
    assert report["pointwise"]["n"] == 48 and report["pointwise"]["accuracy"] == 1.0
    assert "left out 1 improper questions (flagged improper in EVOUNA" in captured.err
    assert "left out 12 unjudged (answers without a human label)" in captured.err
    assert cli_main(["ava", "eval", str(path), "--split", "all", "--json", "--model", "containment",
                     "--whole-gold"]) == 0
    assert _strict_json(capsys.readouterr().out)["pointwise"]["accuracy"] == 0.5  # "City of Light / Paris" is in none


def test_eval_of_the_default_judge_reports_its_stages(tmp_path, capsys):
    pytest.importorskip("onnxruntime")
    assert cli_main(["ava", "eval", str(DEMO), "--json", "--device", "cpu", "--n-jobs", "1"]) == 0
    report = _strict_json(capsys.readouterr().out)
    stages = {row["stage"]: row for row in report["stages"]}
    assert set(stages) == {"triage-accept", "triage-reject", "network"} and sum(r["n"] for r in stages.values()) == 8
    assert cli_main(["ava", "eval", str(DEMO), "--device", "cpu", "--n-jobs", "1"]) == 0
    assert "stage triage-accept" in capsys.readouterr().out


def test_eval_json_writes_nan_as_null(tmp_path, capsys):
    # Two systems with the same gold accuracy: Kendall's tau between the rankings is undefined.
    rows = [("sys_a", "Paris", 1), ("sys_a", "Lyon", 0), ("sys_b", "Paris", 1), ("sys_b", "Lyon", 0)]
    path = tmp_path / "labelled.jsonl"
    path.write_text("".join(json.dumps({"question": "capital of france", "reference": "Paris", "candidate": c,
                                        "label": y, "system": s}) + "\n" for s, c, y in rows))
    with pytest.warns(Warning):  # the constant-input warning of kendalltau
        assert cli_main(["ava", "eval", str(path), "--json", "--model", "linear"]) == 0
    out = capsys.readouterr().out
    assert "NaN" not in out
    report = _strict_json(out)
    assert report["systemwise"]["agreement"]["kendall_tau"] is None and report["systemwise"]["agreement"]["kendall_p"] is None


def _hide(monkeypatch, *modules):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name in modules else real(name, *a))


def test_missing_onnx_extra_before_any_work(monkeypatch, tmp_path, capsys):
    _hide(monkeypatch, "onnxruntime")
    missing = str(tmp_path / "does-not-exist.jsonl")  # not read: the extra is checked first
    for argv in (["score", missing], ["eval", missing], ["score", missing, "--model", str(tmp_path)]):
        assert cli_main(["ava", *argv]) == 2
        err = capsys.readouterr().err
        assert err == 'qascore ava: error: onnxruntime is not installed; install it with: pip install "qascore[onnx]"\n'
    assert cli_main(["ava", "score", str(DEMO), "--model", "linear", "--label-field", "judged"]) == 0  # no extra needed


def test_missing_train_extra_before_any_work(monkeypatch, tmp_path, capsys):
    _hide(monkeypatch, "torch", "sklearn")
    args = ["--data", str(tmp_path / "missing.json"), "--out", str(tmp_path / "out")]
    assert cli_main(["ava", "train", "--model", "a2", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("qascore ava: error: torch") and err.endswith('install it with: pip install "qascore[train]"\n')
    assert cli_main(["ava", "train", "--model", "linear", *args]) == 2
    assert 'sklearn is not installed; install it with: pip install "qascore[train]"' in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_bad_input_is_a_clear_error(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": "q"}\n')
    assert cli_main(["ava", "score", str(bad), "--model", "linear"]) == 2
    assert "bad.jsonl:1: missing field 'reference'" in capsys.readouterr().err


def test_demo_part_runs():
    pytest.importorskip("onnxruntime")
    import io

    from qascore.ava.demo import run_demo

    out = io.StringIO()
    run_demo(DEMO.parent, out)
    text = out.getvalue()
    assert text.startswith("AVA: p(candidate is correct") and "point-wise (threshold 0.52, n=8)" in text


@pytest.mark.parametrize("refs", ["max", "mean"])
def test_score_reference_rule_and_progress_bar(tmp_path, capsys, refs):
    """--refs picks the rule (in the signature); --progress counts the triples scored."""
    records = [{"question": "who wrote hamlet", "reference": ["William Shakespeare", "Marlowe", "Bacon"],
                "candidate": "Shakespeare wrote it"}] * 3
    data = tmp_path / "in.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    assert cli_main(["ava", "score", str(data), "-o", str(out), "--model", "linear", "--refs", refs,
                     "--progress"]) == 0
    expected = default_linear_model(refs).predict_proba(*zip(*[(r["question"], r["reference"], r["candidate"])
                                                               for r in records]))
    assert [line["score"] for line in _lines(out.read_text())] == [round(float(p), 6) for p in expected]
    err = capsys.readouterr().err
    assert f"refs:{refs}" in err and "ava 3 triples (" in err


def test_train_usage_errors_name_the_problem(tmp_path, capsys):
    as2 = tmp_path / "as2.jsonl"
    as2.write_text('{"question": "q", "candidates": [{"sentence": "a", "label": 1}]}\n')
    out = ["--out", str(tmp_path / "out")]
    for model, message in (("A3(q,t)", "unknown AVA architecture 'A3(q,t)'"), ("A1(q,r)", "holds q, r and t")):
        with pytest.raises(SystemExit) as stop:  # argparse: exit status 2
            cli_main(["ava", "train", "--model", model, "--data", str(as2), *out])
        assert stop.value.code == 2 and message in capsys.readouterr().err
    for argv, message in (
        (["--model", "linear", "--data", str(as2)], "the linear model trains on EVOUNA"),
        (["--model", "A0(q,t)", "--data", str(as2), "--as2-pairs", "0"], "--as2-pairs must be >= 1"),
        (["--model", "a2", "--data", str(tmp_path / "NQ.json"), "--as2-pairs", "2"], "not EVOUNA"),
        (["--model", "a2", "--data", str(tmp_path / "NQ.json"), "--as2-off-topic", "2"], "not EVOUNA"),
    ):
        assert cli_main(["ava", "train", *argv, *out]) == 2
        assert message in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
