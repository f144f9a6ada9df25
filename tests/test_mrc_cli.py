"""``qascore mrc`` and the demo part, run through the real command entry point."""
import io
import json
import sys

import pytest

from qascore.cli import main


def run_cli(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def strict_loads(text):
    def refuse(name):
        raise ValueError(f"non-strict JSON constant {name}")
    return json.loads(text, parse_constant=refuse)


def test_dureader_json_output_matches_official_numbers(shared_data, capsys):
    d = shared_data / "mrc/dureader2018_demo"
    code, out, _ = run_cli(capsys, "mrc", "-p", str(d / "pred.json"), "-r", str(d / "ref.json"), "--json")
    report = strict_loads(out)
    assert code == 0
    assert report["ROUGE-L"] == pytest.approx(0.5666570178004583, abs=1e-9)
    assert report["BLEU-4"] == pytest.approx(0.24448926771350635, abs=1e-9)
    assert report["match_ngram"] == [330.0, 265.0, 238.0, 218.0] and report["c_total"] == 493
    assert report["signature"].startswith("qascore:mrc|variant:mrc2018|alpha:1.0|beta:1.0")


@pytest.mark.parametrize("spelling", [("-p", "-r", "--per-example"), ("--pred", "--ref", "--per-question"),
                                      ("--predictions", "--references", "--per-example")])
def test_dureader_text_output_and_per_question(shared_data, capsys, spelling):
    d = shared_data / "mrc/dureader2018_demo"
    pred_flag, ref_flag, per_flag = spelling
    code, out, _ = run_cli(capsys, "mrc", pred_flag, str(d / "pred.json"), ref_flag, str(d / "ref.json"),
                           "--alpha", "0", "--beta", "0", per_flag)
    assert code == 0
    assert out.startswith("ROUGE-L: 53.48  BLEU-1: 28.95 BLEU-2: 25.94 BLEU-3: 24.24 BLEU-4: 23.03")
    assert len(out.strip().splitlines()) == 2 + 9


def test_old_spellings_are_hidden_from_help(capsys):
    with pytest.raises(SystemExit):
        main(["mrc", "--help"])
    text = capsys.readouterr().out
    assert "--predictions" in text and "--per-example" in text
    assert "--pred " not in text and "--per-question" not in text and "--ref " not in text


def test_jsonl_records_then_aggregate_and_json_agree(shared_data, capsys):
    d = shared_data / "mrc/dureader2018_demo"
    argv = ["mrc", "-p", str(d / "pred.json"), "-r", str(d / "ref.json")]
    code, out, _ = run_cli(capsys, *argv, "--jsonl", "--per-example")
    lines = [strict_loads(line) for line in out.splitlines()]
    code_json, document, _ = run_cli(capsys, *argv, "--json", "--per-example")
    document = strict_loads(document)
    assert code == code_json == 0
    assert lines[:-1] == document.pop("per_question") and len(lines) == 10
    assert lines[-1] == document
    assert set(lines[0]) == {"question_id", "ROUGE-L", "BLEU-4"}
    code, out, _ = run_cli(capsys, *argv, "--jsonl")
    assert code == 0 and [strict_loads(line) for line in out.splitlines()] == [document]


def test_stdin_and_output_file(shared_data, capsys, monkeypatch, tmp_path):
    d = shared_data / "mrc/dureader2018_demo"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO((d / "ref.json").read_bytes())))
    target = tmp_path / "report.json"
    code, out, _ = run_cli(capsys, "mrc", "-p", str(d / "pred.json"), "-r", "-", "--json", "-o", str(target))
    assert code == 0 and out == ""
    assert strict_loads(target.read_text())["BLEU-4"] == pytest.approx(0.24448926771350635, abs=1e-9)


def test_stdin_errors_are_named_and_two_stdins_refused(tmp_path, capsys, monkeypatch):
    ref = tmp_path / "ref.json"
    ref.write_text('{"question_id": 1, "question_type": "DESCRIPTION", "answers": ["a"]}\n')
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b'{"question_id": 1}\n')))
    code, _, err = run_cli(capsys, "mrc", "-p", "-", "-r", str(ref))
    assert code == 2 and "<stdin>:1: missing field 'answers'" in err
    code, _, err = run_cli(capsys, "mrc", "-p", "-", "-r", "-")
    assert code == 2 and "only one of --predictions / --references may be -" in err
    code, _, err = run_cli(capsys, "mrc", "-r", str(ref))
    assert code == 2 and "required: -p/--predictions" in err


def test_msmarco_format(shared_data, capsys):
    d = shared_data / "mrc/msmarco"
    code, out, _ = run_cli(capsys, "mrc", "--format", "msmarco", "-p", str(d / "same_answer_test_candidates.json"),
                           "-r", str(d / "same_answer_test_references.json"), "--json")
    report = strict_loads(out)
    assert code == 0 and report["ROUGE-L"] == pytest.approx(1.0) and report["BLEU-4"] == pytest.approx(1.0)


def test_bad_file_is_a_clean_error_with_line(tmp_path, capsys):
    pred = tmp_path / "pred.json"
    pred.write_text('{"question_id": 1, "answers": ["a"]}\n{"question_id": 1, "answers": ["b"]}\n')
    ref = tmp_path / "ref.json"
    ref.write_text('{"question_id": 1, "question_type": "DESCRIPTION", "answers": ["a"]}\n')
    code, _, err = run_cli(capsys, "mrc", "-p", str(pred), "-r", str(ref))
    assert code == 2 and "pred.json:2: duplicate question_id 1" in err


def test_demo_part_runs(capsys):
    from qascore.cli.demo import demo_data_dir
    from qascore.lexical.demo import mrc_demo

    buf = io.StringIO()
    mrc_demo(demo_data_dir(), buf)
    text = buf.getvalue()
    assert "BLEU = " in text and "alpha=1 beta=1: ROUGE-L" in text


def test_msmarco_jsonl_per_example(shared_data, capsys):
    d = shared_data / "mrc/msmarco"
    code, out, _ = run_cli(capsys, "mrc", "--format", "msmarco", "-p", str(d / "sample_candidates.json"),
                           "-r", str(d / "sample_references.json"), "--jsonl", "--per-example")
    lines = [strict_loads(line) for line in out.splitlines()]
    assert code == 0 and set(lines[0]) == {"query_id", "ROUGE-L"}
    assert len(lines) == lines[-1]["n_scored"] + 1 and "per_question" not in lines[-1]
