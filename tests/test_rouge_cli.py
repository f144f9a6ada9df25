"""``qascore rouge``: formats, outputs, progress, and errors that name the file and line."""
from __future__ import annotations

import json

import pytest
from rouge_score.rouge_scorer import RougeScorer as PeerScorer

from qascore.cli import main
from qascore.cli import rouge as cli_rouge

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


def jsonl_out(out):
    return [json.loads(line) for line in out.splitlines()]


def test_plain_lines_per_example_jsonl_matches_rouge_score(tmp_path, capsys):
    p = write(tmp_path / "p.txt", "\n".join(PREDICTIONS) + "\n")
    r = write(tmp_path / "r.txt", "\n".join(REFERENCES) + "\n")
    code, out, _ = run_cli(capsys, "-p", p, "-r", r, "--types", "rouge1,rougeL", "--stem",
                           "--output-format", "jsonl", "--per-example")
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
                           "--types", "rouge2", "--output-format", "jsonl", "--per-example")
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
    assert code == 0 and "5/5" in err and "5/5" not in out


def test_progress_advances_per_chunk(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(cli_rouge, "_CHUNK", 2)
    p = write(tmp_path / "p.txt", "a b\n" * 5)
    code, _, err = run_cli(capsys, "-p", p, "-r", p, "--progress")
    assert code == 0 and "2/5" in err and "4/5" in err and "5/5" in err


def test_output_file(tmp_path, capsys):
    p = write(tmp_path / "p.txt", "a b\n")
    target = tmp_path / "out.jsonl"
    code, out, _ = run_cli(capsys, "-p", p, "-r", p, "--output-format", "jsonl", "-o", str(target))
    assert code == 0 and out == ""
    assert json.loads(target.read_text())["aggregate"]["rouge1"]["fmeasure"] == 1.0


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
    import io

    from qascore.cli.demo import demo_data_dir

    out = io.StringIO()
    cli_rouge.run_demo(demo_data_dir(), out)
    text = out.getvalue()
    folder = demo_data_dir() / "rouge"
    preds = [json.loads(line)["prediction"] for line in (folder / "predictions.jsonl").read_text().splitlines()]
    refs = [json.loads(line)["reference"] for line in (folder / "references.jsonl").read_text().splitlines()]
    peer = PeerScorer(["rougeL"], use_stemmer=True)
    mean_f = sum(peer.score_multi(r, p)["rougeL"].fmeasure for p, r in zip(preds, refs)) / len(preds)
    assert f"rougeL        " in text and f"{mean_f:10.5f}" in text
    assert "multiref:max_pr|gamma:1.2" in text
