"""``qascore rouge``: formats, outputs, progress, and errors that name the file and line."""
from __future__ import annotations

import io
import json
import sys

import pytest
from rouge_score.rouge_scorer import RougeScorer as PeerScorer

from qascore.cli import main
from qascore.lexical.demo import rouge_demo

PREDICTIONS = ["the cat sat on the mat", "hello world", ""]
REFERENCES = ["the cat sat down on a mat", "hello there world", "nothing"]
SECOND = ["a cat on a mat", "world hello", "nothing at all"]


def write(path, text, mode="w"):
    if mode == "wb":
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return str(path)


def run_cli(capsys, *argv):
    code = main(["rouge", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def strict_loads(text):
    """json.loads that refuses NaN / Infinity, so a test fails on non-strict JSON."""
    def refuse(name):
        raise ValueError(f"non-strict JSON constant {name}")
    return json.loads(text, parse_constant=refuse)


def jsonl_out(out):
    return [strict_loads(line) for line in out.splitlines()]


def feed_stdin(monkeypatch, data: bytes):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))


def test_plain_lines_per_example_jsonl_matches_rouge_score(tmp_path, capsys):
    p = write(tmp_path / "p.txt", "\n".join(PREDICTIONS) + "\n")
    r = write(tmp_path / "r.txt", "\n".join(REFERENCES) + "\n")
    code, out, _ = run_cli(capsys, "-p", p, "-r", r, "--types", "rouge1,rougeL", "--stem", "--jsonl",
                           "--per-example")
    assert code == 0
    records = jsonl_out(out)
    peer = PeerScorer(["rouge1", "rougeL"], use_stemmer=True)
    for rec, pred, ref in zip(records, PREDICTIONS, REFERENCES):
        expected = peer.score(ref, pred)
        assert rec["rougeL"]["fmeasure"] == expected["rougeL"].fmeasure
        assert rec["rouge1"]["recall"] == expected["rouge1"].recall
    summary = records[-1]
    assert summary["n"] == 3 and "stem:yes" in summary["signature"]
    mean_f = sum(peer.score(r_, p_)["rougeL"].fmeasure for p_, r_ in zip(PREDICTIONS, REFERENCES)) / 3
    assert summary["aggregate"]["rougeL"]["fmeasure"] == pytest.approx(mean_f, rel=1e-15)


def test_jsonl_fields_and_repeated_reference_files_use_score_multi(tmp_path, capsys):
    p = write(tmp_path / "p.jsonl", "".join(json.dumps({"answer": x}) + "\n" for x in PREDICTIONS))
    r1 = write(tmp_path / "r1.jsonl", "".join(json.dumps({"gold": x}) + "\n" for x in REFERENCES))
    r2 = write(tmp_path / "r2.jsonl", "".join(json.dumps({"gold": [x]}) + "\n" for x in SECOND))
    code, out, _ = run_cli(capsys, "-p", p, "-r", r1, "-r", r2, "--pred-field", "answer", "--ref-field", "gold",
                           "--types", "rouge2", "--jsonl", "--per-example")
    assert code == 0
    peer = PeerScorer(["rouge2"])
    for rec, pred, a, b in zip(jsonl_out(out), PREDICTIONS, REFERENCES, SECOND):
        assert rec["rouge2"]["fmeasure"] == peer.score_multi([a, b], pred)["rouge2"].fmeasure


def test_tsv_columns_by_header_and_index_and_table_output(tmp_path, capsys):
    rows = ["id\tpred\tref"] + [f"{i}\t{p}\t{r}" for i, (p, r) in enumerate(zip(PREDICTIONS, REFERENCES))]
    f = write(tmp_path / "pairs.tsv", "\n".join(rows) + "\n")
    code, out, _ = run_cli(capsys, "-p", f, "-r", f, "--tsv-header", "--pred-field", "pred", "--ref-field", "2",
                           "--types", "rougeL", "--multi-ref", "max_pr", "--gamma", "1.2")
    assert code == 0
    assert out.splitlines()[0].startswith("type") and "rougeL" in out and "gamma:1.2" in out


def test_progress_bar_goes_to_stderr(tmp_path, capsys):
    p = write(tmp_path / "p.txt", "a b\n" * 5)
    code, out, err = run_cli(capsys, "-p", p, "-r", p, "--progress")
    assert code == 0 and "rouge 5 examples (" in err and "examples" not in out  # streamed: a count, no total


def test_progress_advances_per_chunk(tmp_path, capsys):
    p = write(tmp_path / "p.txt", "a b\n" * 5)
    code, _, err = run_cli(capsys, "-p", p, "-r", p, "--progress", "--chunk-size", "2")
    assert code == 0 and "rouge 2 examples (" in err and "rouge 4 examples (" in err and "/s)\n" in err


def test_output_file(tmp_path, capsys):
    p = write(tmp_path / "p.txt", "a b\n")
    target = tmp_path / "out.jsonl"
    code, out, _ = run_cli(capsys, "-p", p, "-r", p, "--jsonl", "-o", str(target))
    assert code == 0 and out == ""
    assert strict_loads(target.read_text())["aggregate"]["rouge1"]["fmeasure"] == 1.0
    assert [f.name for f in tmp_path.iterdir() if f.name.endswith(".part")] == []


def test_failed_run_leaves_no_output_file(tmp_path, capsys):
    p = write(tmp_path / "p.txt", "a b\n")
    target = tmp_path / "out.json"
    code, _, _ = run_cli(capsys, "-p", p, "-r", p, "--types", "rougeQ", "--json", "-o", str(target))
    assert code == 2 and list(tmp_path.iterdir()) == [tmp_path / "p.txt"]


def test_old_output_format_spelling_still_works(tmp_path, capsys):
    p = write(tmp_path / "p.txt", "a b\nc d\n")
    code, out, _ = run_cli(capsys, "-p", p, "-r", p, "--output-format", "jsonl", "--per-example")
    assert code == 0
    assert [set(r) for r in jsonl_out(out)] == [{"index", "rouge1", "rouge2", "rougeL"}] * 2 + [
        {"aggregate", "n", "signature"}]
    code, out, _ = run_cli(capsys, "-p", p, "-r", p, "--output-format", "table")
    assert code == 0 and out.startswith("type ")
    assert "--output-format" not in cli_help(capsys)


def cli_help(capsys):
    with pytest.raises(SystemExit):
        main(["rouge", "--help"])
    return capsys.readouterr().out


def test_json_is_one_strict_document_with_examples(tmp_path, capsys):
    p = write(tmp_path / "p.txt", "\n".join(PREDICTIONS) + "\n")
    r = write(tmp_path / "r.txt", "\n".join(REFERENCES) + "\n")
    code, out, _ = run_cli(capsys, "-p", p, "-r", r, "--types", "rougeL", "--json", "--per-example")
    assert code == 0
    document = strict_loads(out)
    assert document["n"] == 3 and document["signature"].startswith("qascore:rouge|types:rougeL")
    peer = PeerScorer(["rougeL"])
    assert [e["rougeL"]["fmeasure"] for e in document["examples"]] == [
        peer.score(r_, p_)["rougeL"].fmeasure for p_, r_ in zip(PREDICTIONS, REFERENCES)]
    code, out, _ = run_cli(capsys, "-p", p, "-r", r, "--json")
    assert "examples" not in strict_loads(out) and len(out.splitlines()) == 1


def test_stdin_as_predictions_or_references(tmp_path, capsys, monkeypatch):
    r = write(tmp_path / "r.txt", "\n".join(REFERENCES) + "\n")
    p = write(tmp_path / "p.txt", "\n".join(PREDICTIONS) + "\n")
    code, want, _ = run_cli(capsys, "-p", p, "-r", r, "--jsonl", "--per-example")
    feed_stdin(monkeypatch, ("\n".join(PREDICTIONS) + "\n").encode())
    code, got, _ = run_cli(capsys, "-p", "-", "-r", r, "--jsonl", "--per-example")
    assert code == 0 and got == want
    feed_stdin(monkeypatch, ("\n".join(REFERENCES) + "\n").encode())
    code, got, _ = run_cli(capsys, "-p", p, "-r", "-", "--jsonl", "--per-example")
    assert code == 0 and got == want


def test_stdin_through_the_installed_command(tmp_path):
    import subprocess

    r = write(tmp_path / "r.txt", "a b c\n")
    done = subprocess.run([sys.executable, "-m", "qascore", "rouge", "-p", "-", "-r", r, "--json"],
                          input=b"a b\n", capture_output=True, check=False)
    assert done.returncode == 0, done.stderr
    assert strict_loads(done.stdout)["aggregate"]["rouge1"]["recall"] == pytest.approx(2 / 3)


@pytest.mark.parametrize("argv", [["-p", "-", "-r", "-"], ["-p", "P", "-r", "-", "-r", "-"]])
def test_stdin_for_two_inputs_is_an_error(tmp_path, capsys, argv):
    p = write(tmp_path / "p.txt", "a\n")
    code, out, err = run_cli(capsys, *[p if a == "P" else a for a in argv])
    assert code == 2 and out == "" and "only one of --predictions / --references may be -" in err


def test_header_looking_tsv_line_needs_a_header_flag(tmp_path, capsys):
    f = write(tmp_path / "pairs.tsv", "prediction\treference\na b\ta b c\n")
    code, out, err = run_cli(capsys, "-p", f, "-r", f, "--pred-field", "0", "--ref-field", "1")
    assert code == 2 and out == "" and "pairs.tsv:1: the first line looks like a header" in err
    code, out, _ = run_cli(capsys, "-p", f, "-r", f, "--pred-field", "0", "--ref-field", "1", "--no-tsv-header",
                           "--jsonl", "--per-example")
    assert code == 0 and jsonl_out(out)[-1]["n"] == 2
    code, out, _ = run_cli(capsys, "-p", f, "-r", f, "--pred-field", "prediction", "--ref-field", "reference",
                           "--tsv-header", "--jsonl", "--per-example")
    records = jsonl_out(out)
    assert code == 0 and records[-1]["n"] == 1 and records[0]["rouge1"]["recall"] == pytest.approx(2 / 3)


@pytest.mark.parametrize(
    "pred_text,ref_text,fmt,message",
    [
        (b"ok\n\xff\xfe\n", b"a\nb\n", "lines", "p:2: invalid UTF-8"),
        (b'{"prediction": "a"}\n{"x": 1}\n', b'{"reference": "a"}\n{"reference": "b"}\n', "jsonl", "p:2: missing field 'prediction'"),
        (b'{"prediction": "a"}\n{oops\n', b'{"reference": "a"}\n{"reference": "b"}\n', "jsonl", "p:2: invalid JSON"),
        (b'{"prediction": "a"}\n', b'{"reference": []}\n', "jsonl", "r:1: field 'reference' must be a non-empty list"),
        (b'{"prediction": "a"}\n\n{"prediction": "b"}\n', b'{"reference": "a"}\n', "jsonl", "p:2: blank line"),
        (b"a\tb\nc\n", b"x\ty\nz\tw\n", "tsv", "p:2: expected at least 2 tab-separated columns"),
        (b"a\nb\n", b"a\n", "lines", "has 2 examples but"),
    ],
)
def test_errors_name_file_and_line(tmp_path, capsys, pred_text, ref_text, fmt, message):
    p = write(tmp_path / "p", pred_text, "wb")
    r = write(tmp_path / "r", ref_text, "wb")
    extra = ["--pred-field", "1", "--ref-field", "1"] if fmt == "tsv" else []
    code, out, err = run_cli(capsys, "-p", p, "-r", r, "--format", fmt, *extra)
    assert code == 2 and out == ""
    assert message in err.replace(str(tmp_path) + "/", "")


def test_bad_type_is_an_error(tmp_path, capsys):
    p = write(tmp_path / "p.txt", "a\n")
    code, _, err = run_cli(capsys, "-p", p, "-r", p, "--types", "rouge1,rougeQ")
    assert code == 2 and "Invalid rouge type" in err


def test_demo_part_scores_the_bundled_data_like_rouge_score():
    from qascore.cli.demo import _DEMO_PARTS, demo_data_dir

    assert "qascore.lexical.demo" in _DEMO_PARTS

    out = io.StringIO()
    rouge_demo(demo_data_dir(), out)
    text = out.getvalue()
    folder = demo_data_dir() / "rouge"
    preds = [json.loads(line)["prediction"] for line in (folder / "predictions.jsonl").read_text().splitlines()]
    refs = [json.loads(line)["reference"] for line in (folder / "references.jsonl").read_text().splitlines()]
    peer = PeerScorer(["rougeL"], use_stemmer=True)
    mean_f = sum(peer.score_multi(r, p)["rougeL"].fmeasure for p, r in zip(preds, refs)) / len(preds)
    assert "rougeL        " in text and f"{mean_f:10.5f}" in text
    assert "multiref:max_pr|gamma:1.2" in text
