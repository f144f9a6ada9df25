"""Bad input to every ``qascore`` command, one table row per case.

A failing case ends with exit status 2, exactly one line on stderr (``qascore <command>: error:
...`` naming the file and line, or the option), nothing on stdout, no traceback and no output
file (not even a partial one). A case with a documented result exits 0 and its output is checked.
"""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from qascore.cli import main

DEMO = Path(__file__).parents[2] / "src" / "qascore" / "demo_data"
KEY, RUN = str(DEMO / "nuggets/answer_key.txt"), str(DEMO / "nuggets/run.txt")
MRC_P, MRC_R = str(DEMO / "mrc/pred.jsonl"), str(DEMO / "mrc/ref.jsonl")
EXAM_Q, EXAM_A = str(DEMO / "exam/questions.jsonl"), str(DEMO / "exam/systems/good-system.jsonl")
AVA = str(DEMO / "ava_demo.jsonl")
GOOD = b"the cat sat\na dog ran\n"
HAS_SKLEARN = importlib.util.find_spec("sklearn") is not None  # calibrate checks its extra first


def fails(fragment: str):
    return ("fails", fragment)


def succeeds(check, what: str):
    return ("succeeds", (check, what))


def rouge_json(check):
    return succeeds(lambda out: check(json.loads(out)), "rouge --json output")


# Each argv is a function of ``w(name, data)``, which writes an input file and returns its path.
CASES = [
    # -- rouge -----------------------------------------------------------------------------
    ("rouge:empty files", lambda w: ["rouge", "-p", w("p.txt", b""), "-r", w("r.txt", b"")], fails("no prediction to score")),
    ("rouge:files holding only a BOM", lambda w: ["rouge", "-p", w("p.txt", b"\xef\xbb\xbf"), "-r", w("r.txt", b"\xef\xbb\xbf")],
     fails("no prediction to score")),
    ("rouge:mismatched line counts", lambda w: ["rouge", "-p", w("p.txt", b"a\nb\n"), "-r", w("r.txt", b"a\n")],
     fails("p.txt has 2 examples but")),
    ("rouge:invalid UTF-8", lambda w: ["rouge", "-p", w("p.txt", b"ok\n\xff\xfe bad\n"), "-r", w("r.txt", GOOD)],
     fails("p.txt:2: invalid UTF-8 (invalid start byte at byte 0)")),
    ("rouge:lone surrogate encoded in UTF-8", lambda w: ["rouge", "-p", w("p.txt", b"a \xed\xa0\x80\nb\n"),
                                                         "-r", w("r.txt", GOOD)], fails("p.txt:1: invalid UTF-8")),
    ("rouge:lone surrogate in JSONL", lambda w: ["rouge", "-p", w("p.jsonl", b'{"prediction": "a \\ud800"}\n'),
                                                 "-r", w("r.jsonl", b'{"reference": "a"}\n'),
                                                 "--pred-field", "prediction", "--ref-field", "reference"],
     fails("p.jsonl:1: invalid JSON: no low surrogate")),
    ("rouge:NaN as a JSONL record", lambda w: ["rouge", "-p", w("p.jsonl", b"NaN\n"), "-r", w("r.jsonl", b"{}\n")],
     fails("p.jsonl:1: invalid JSON")),
    ("rouge:JSONL field of the wrong type", lambda w: ["rouge", "-p", w("p.jsonl", b'{"prediction": 1}\n'),
                                                      "-r", w("r.jsonl", b'{"reference": "a"}\n'),
                                                      "--pred-field", "prediction", "--ref-field", "reference"],
     fails("p.jsonl:1: field 'prediction' must be str, got int")),
    ("rouge:JSONL blank line", lambda w: ["rouge", "-p", w("p.jsonl", b'{"prediction": "a"}\n\n'),
                                          "-r", w("r.jsonl", b'{"reference": "a"}\n{"reference": "b"}\n'),
                                          "--pred-field", "prediction", "--ref-field", "reference"],
     fails("p.jsonl:2: blank line, expected a JSON value")),
    ("rouge:TSV header without --tsv-header", lambda w: ["rouge", "-p", w("p.tsv", b"prediction\nthe cat\n"),
                                                         "-r", w("r.tsv", b"reference\nthe cat\n")],
     fails("p.tsv:1: the first line looks like a header")),
    ("rouge:TSV header with --tsv-header", lambda w: ["rouge", "-p", w("p.tsv", b"id\tprediction\n1\tthe cat\n"),
                                                      "-r", w("r.tsv", b"id\treference\n1\tthe cat\n"), "--tsv-header",
                                                      "--pred-field", "prediction", "--ref-field", "reference", "--json"],
     rouge_json(lambda d: d["n"] == 1 and d["aggregate"]["rouge1"]["fmeasure"] == 1.0)),
    ("rouge:TSV column missing", lambda w: ["rouge", "-p", w("p.tsv", b"a\tb\n"), "-r", w("r.tsv", b"a\tb\n"),
                                            "--pred-field", "5", "--ref-field", "1"],
     fails("p.tsv:1: expected at least 6 tab-separated columns, got 2")),
    ("rouge:TSV header names no such column", lambda w: ["rouge", "-p", w("p.tsv", b"id\tprediction\n1\ta\n"),
                                                         "-r", w("r.tsv", b"id\treference\n1\ta\n"), "--tsv-header",
                                                         "--pred-field", "pred", "--ref-field", "reference"],
     fails("p.tsv:1: no column named 'pred'")),
    ("rouge:CR-only line endings", lambda w: ["rouge", "-p", w("p.txt", b"the cat sat\ra dog ran\r"),
                                              "-r", w("r.txt", GOOD), "--json"],
     rouge_json(lambda d: d["n"] == 2 and d["aggregate"]["rougeL"]["fmeasure"] == 1.0)),
    ("rouge:CRLF line endings", lambda w: ["rouge", "-p", w("p.txt", b"the cat sat\r\na dog ran\r\n"),
                                           "-r", w("r.txt", GOOD), "--json"],
     rouge_json(lambda d: d["n"] == 2 and d["aggregate"]["rougeL"]["fmeasure"] == 1.0)),
    ("rouge:mixed line endings", lambda w: ["rouge", "-p", w("p.txt", b"the cat sat\r\na dog ran"),
                                            "-r", w("r.txt", b"the cat sat\ra dog ran\n"), "--json"],
     rouge_json(lambda d: d["n"] == 2 and d["aggregate"]["rougeL"]["fmeasure"] == 1.0)),
    ("rouge:UTF-8 BOM with the whitespace tokenizer", lambda w: ["rouge", "-p", w("p.txt", b"\xef\xbb\xbfcat sat\n"),
                                                                  "-r", w("r.txt", b"cat sat\n"), "--types", "rouge1",
                                                                  "--tokenizer", "whitespace", "--json"],
     rouge_json(lambda d: d["aggregate"]["rouge1"]["fmeasure"] == 1.0)),
    ("rouge:BOM on a JSONL file", lambda w: ["rouge", "-p", w("p.jsonl", b'\xef\xbb\xbf{"prediction": "a b"}\n'),
                                             "-r", w("r.jsonl", b'{"reference": "a b"}\n'),
                                             "--pred-field", "prediction", "--ref-field", "reference", "--json"],
     rouge_json(lambda d: d["aggregate"]["rouge1"]["fmeasure"] == 1.0)),
    ("rouge:NUL inside a line", lambda w: ["rouge", "-p", w("p.txt", b"a\x00b c\n"), "-r", w("r.txt", b"a\x00b c\n"),
                                           "--types", "rouge1", "--json"],
     rouge_json(lambda d: d["n"] == 1 and d["aggregate"]["rouge1"]["fmeasure"] == 1.0)),
    ("rouge:missing file", lambda w: ["rouge", "-p", "/nonexistent/p.txt", "-r", w("r.txt", GOOD)],
     fails("No such file or directory: '/nonexistent/p.txt'")),
    ("rouge:a directory as input", lambda w: ["rouge", "-p", str(Path(w("r.txt", GOOD)).parent), "-r", w("r.txt", GOOD)],
     fails("Is a directory")),
    ("rouge:unknown type", lambda w: ["rouge", "-p", w("p.txt", GOOD), "-r", w("r.txt", GOOD), "--types", "rouge0"],
     fails("Invalid rouge type: 'rouge0'")),
    ("rouge:gamma NaN", lambda w: ["rouge", "-p", w("p.txt", GOOD), "-r", w("r.txt", GOOD), "--gamma", "nan"],
     fails("gamma must be a finite number > 0, got nan")),
    ("rouge:gamma inf", lambda w: ["rouge", "-p", w("p.txt", GOOD), "-r", w("r.txt", GOOD), "--gamma", "inf"],
     fails("gamma must be a finite number > 0, got inf")),
    ("rouge:n-jobs 0", lambda w: ["rouge", "-p", w("p.txt", GOOD), "-r", w("r.txt", GOOD), "--n-jobs", "0"],
     fails("n_jobs must be a positive int")),
    ("rouge:n-jobs beyond 64 bits", lambda w: ["rouge", "-p", w("p.txt", GOOD), "-r", w("r.txt", GOOD),
                                               "--n-jobs", str(2**70)], fails("n_jobs must be <= 1024")),
    ("rouge:unknown tokenizer", lambda w: ["rouge", "-p", w("p.txt", GOOD), "-r", w("r.txt", GOOD), "--tokenizer", "zzz"],
     fails("unknown tokenizer 'zzz'")),
    ("rouge:output into a missing folder", lambda w: ["rouge", "-p", w("p.txt", GOOD), "-r", w("r.txt", GOOD),
                                                      "-o", "/nonexistent/out.json"], fails("No such file or directory")),
    # -- mrc -------------------------------------------------------------------------------
    ("mrc:empty files", lambda w: ["mrc", "-p", w("p.jsonl", b""), "-r", w("r.jsonl", b"")],
     fails("no reference question has answers: there is nothing to score")),
    ("mrc:invalid JSON", lambda w: ["mrc", "-p", w("p.jsonl", b"{bad\n"), "-r", MRC_R], fails("p.jsonl:1: invalid JSON")),
    ("mrc:invalid UTF-8", lambda w: ["mrc", "-p", w("p.jsonl", b'{"question_id": 1, "answers": ["\xff"]}\n'), "-r", MRC_R],
     fails("p.jsonl:1: invalid UTF-8")),
    ("mrc:alpha NaN", lambda w: ["mrc", "-p", MRC_P, "-r", MRC_R, "--alpha", "nan"],
     fails("alpha must be a finite number >= 0, got nan")),
    ("mrc:gamma inf", lambda w: ["mrc", "-p", MRC_P, "-r", MRC_R, "--gamma", "inf"],
     fails("gamma must be a finite number > 0, got inf")),
    ("mrc:beta negative", lambda w: ["mrc", "-p", MRC_P, "-r", MRC_R, "--beta", "-1"],
     fails("beta must be a finite number >= 0, got -1.0")),
    ("mrc:question id beyond 64 bits", lambda w: ["mrc", "-p", w("p.jsonl", b'{"question_id": 123456789012345678901234567890, '
                                                                  b'"answers": ["a"], "yesno_answers": []}\n'), "-r", MRC_R],
     fails("p.jsonl:1: field 'question_id' must be int/str, got float")),
    ("mrc:None answer", lambda w: ["mrc", "-p", w("p.jsonl", b'{"question_id": 1, "answers": [null], "yesno_answers": []}\n'),
                                   "-r", MRC_R], fails("p.jsonl:1: answers[0] must be a string, got NoneType")),
    ("mrc:answers a string", lambda w: ["mrc", "-p", w("p.jsonl", b'{"question_id": 1, "answers": "abc", "yesno_answers": []}\n'),
                                        "-r", MRC_R], fails("p.jsonl:1: field 'answers' must be list, got str")),
    ("mrc:msmarco empty files", lambda w: ["mrc", "--format", "msmarco", "-p", w("p.jsonl", b""), "-r", w("r.jsonl", b"")],
     fails("no reference query has answers")),
    # -- nuggets ---------------------------------------------------------------------------
    ("nuggets score:empty files", lambda w: ["nuggets", "score", "-r", w("k.txt", b""), "-p", w("run.txt", b"")],
     fails("k.txt: the answer key holds no question")),
    ("nuggets score:invalid UTF-8", lambda w: ["nuggets", "score", "-r", KEY, "-p", w("run.txt", b"1.1 R D \xff\n")],
     fails("run.txt:1: invalid UTF-8")),
    ("nuggets score:run line too short", lambda w: ["nuggets", "score", "-r", KEY, "-p", w("run.txt", b"1.1 R\n")],
     fails("run.txt:1: expected '<qid> <run-tag> <docid> <answer string>'")),
    ("nuggets score:threshold NaN", lambda w: ["nuggets", "score", "-r", KEY, "-p", RUN, "--threshold", "nan"],
     fails("threshold must be a finite number in [0, 1], got nan")),
    ("nuggets score:beta inf", lambda w: ["nuggets", "score", "-r", KEY, "-p", RUN, "--beta", "inf"],
     fails("beta must be a finite number > 0, got inf")),
    ("nuggets score:beta negative", lambda w: ["nuggets", "score", "-r", KEY, "-p", RUN, "--beta", "-1"],
     fails("beta must be a finite number > 0, got -1.0")),
    ("nuggets score:official without judgements", lambda w: ["nuggets", "score", "--method", "official", "-r", KEY],
     fails("--method official needs --judgements")),
    ("nuggets score:BOM on the key", lambda w: ["nuggets", "score", "-r", w("k.txt", b"\xef\xbb\xbf" + Path(KEY).read_bytes()),
                                                "-p", RUN, "--json"],
     succeeds(lambda out: json.loads(out)["runs"][0]["f"] == 0.8448275862068966, "the key read as without BOM")),
    ("nuggets assign:empty files", lambda w: ["nuggets", "assign", "-r", w("k.txt", b""), "-p", w("run.txt", b"")],
     fails("the answer key holds no question")),
    ("nuggets rag:empty file", lambda w: ["nuggets", "rag", "-p", w("a.jsonl", b"")], fails("a.jsonl: no topic to score")),
    ("nuggets rag:nuggets null", lambda w: ["nuggets", "rag", "-p", w("a.jsonl", b'{"qid": "1", "answer_text": "a", "nuggets": null}\n')],
     fails("a.jsonl:1: field 'nuggets' must be list, got NoneType")),
    # -- exam ------------------------------------------------------------------------------
    ("exam:empty question bank", lambda w: ["exam", "-q", w("q.jsonl", b""), "--articles", EXAM_A],
     fails("the question bank has no questions")),
    ("exam:empty articles", lambda w: ["exam", "-q", EXAM_Q, "--articles", w("a.jsonl", b"")],
     fails("a.jsonl: no article (the file is empty)")),
    ("exam:invalid JSON", lambda w: ["exam", "-q", w("q.jsonl", b"{\n"), "--articles", EXAM_A], fails("q.jsonl:1: invalid JSON")),
    ("exam:threshold NaN", lambda w: ["exam", "-q", EXAM_Q, "--articles", EXAM_A, "--threshold", "nan"],
     fails("--threshold must be a finite number in [0, 1), got nan")),
    ("exam:top-k negative", lambda w: ["exam", "-q", EXAM_Q, "--articles", EXAM_A, "--top-k", "-1"],
     fails("--top-k must be >= 1, got -1")),
    ("exam:repeats 0", lambda w: ["exam", "-q", EXAM_Q, "--articles", EXAM_A, "--repeats", "0"],
     fails("--repeats must be >= 1, got 0")),
    ("exam:seed negative", lambda w: ["exam", "-q", EXAM_Q, "--articles", EXAM_A, "--seed", "-1"],
     fails("--seed must be >= 0, got -1")),
    ("exam:margin NaN", lambda w: ["exam", "-q", EXAM_Q, "--articles", EXAM_A, "--margin", "nan"],
     fails("--margin must be a finite number >= 0, got nan")),
    ("exam:answer key not among the choices", lambda w: ["exam", "-q", w("q.jsonl", b'{"query_id": "photosynthesis", '
                                                                           b'"question_id": "p1", "question": "x", '
                                                                           b'"choices": {"a": "b"}, "key": "z"}\n'),
                                                          "--articles", EXAM_A],
     fails("q.jsonl:1: question 'p1' of query 'photosynthesis': answer key 'z' is not among the choices")),
    ("exam:choices null", lambda w: ["exam", "-q", w("q.jsonl", b'{"query_id": "photosynthesis", "question_id": "p1", '
                                                                b'"question": "x", "choices": null, "key": "a"}\n'),
                                     "--articles", EXAM_A], fails("q.jsonl:1: question 'p1' of query 'photosynthesis': neither")),
    # -- ava -------------------------------------------------------------------------------
    ("ava score:empty input", lambda w: ["ava", "score", "--model", "linear", "--label-field", "judged", w("a.jsonl", b"")],
     fails("a.jsonl: no triple to score (the input is empty)")),
    ("ava score:invalid JSON", lambda w: ["ava", "score", "--model", "linear", "--label-field", "judged", w("a.jsonl", b"{\n")], fails("a.jsonl:1: invalid JSON")),
    ("ava score:reference null", lambda w: ["ava", "score", "--model", "linear", "--label-field", "judged",
                                            w("a.jsonl", b'{"question":"q","reference":null,"candidate":"c"}\n')],
     fails("a.jsonl:1: field 'reference' must be str/list, got NoneType")),
    ("ava score:reference []", lambda w: ["ava", "score", "--model", "linear", "--label-field", "judged",
                                          w("a.jsonl", b'{"question":"q","reference":[],"candidate":"c"}\n')],
     fails("a.jsonl:1: field 'reference' must be a string or a non-empty list of strings")),
    ("ava score:mismatched aligned files", lambda w: ["ava", "score", "--model", "linear", "--label-field", "judged", "-q", w("q.txt", b"q\nq\n"),
                                                      "-r", w("r.txt", b"r\n"), "-p", w("p.txt", b"c\nc\n")],
     fails("q.txt has 2 examples but")),
    ("ava score:invalid UTF-8", lambda w: ["ava", "score", "--model", "linear", "--label-field", "judged", "-q", w("q.txt", b"q\n"),
                                           "-r", w("r.txt", b"\xc3\n"), "-p", w("p.txt", b"c\n")], fails("r.txt:1: invalid UTF-8")),
    ("ava score:missing model", lambda w: ["ava", "score", "--model", "/nonexistent",
                                           w("a.jsonl", b'{"question":"q","reference":"r","candidate":"c"}\n')],
     fails("file not found: /nonexistent/model.json")),
    ("ava eval:empty input", lambda w: ["ava", "eval", "--model", "linear", w("e.jsonl", b"")],
     fails("point-wise evaluation of zero items is undefined")),
    ("ava eval:label 2", lambda w: ["ava", "eval", "--model", "linear",
                                    w("e.jsonl", b'{"question":"q","reference":"r","candidate":"c","label":2}\n')],
     fails("e.jsonl:1: field 'label' must be 0/1 or true/false, got 2")),
    ("ava eval:label a string", lambda w: ["ava", "eval", "--model", "linear",
                                           w("e.jsonl", b'{"question":"q","reference":"r","candidate":"c","label":"yes"}\n')],
     fails("e.jsonl:1: field 'label' must be bool/int, got str")),
    ("ava eval:threshold NaN", lambda w: ["ava", "eval", "--model", "linear", "--threshold", "nan", AVA],
     fails("--threshold must be a finite number in [0, 1], got nan")),
    ("ava eval:threshold 2", lambda w: ["ava", "eval", "--model", "linear", "--threshold", "2", AVA],
     fails("--threshold must be a finite number in [0, 1], got 2.0")),
    ("ava calibrate:missing data file", lambda w: ["ava", "calibrate", "--data", "/nonexistent/nq.json",
                                                   w("linear.json", b"{}")],
     fails("No such file or directory: '/nonexistent/nq.json'" if HAS_SKLEARN else 'pip install "qascore[train]"')),
]

@pytest.mark.parametrize("argv_of,outcome", [pytest.param(a, o, id=i) for i, a, o in CASES])
def test_bad_input(argv_of, outcome, tmp_path, capsys):
    inputs, out_dir = tmp_path / "in", tmp_path / "out"
    inputs.mkdir()
    out_dir.mkdir()

    def w(name: str, data: bytes) -> str:
        (inputs / name).write_bytes(data)
        return str(inputs / name)

    argv = argv_of(w)
    kind, detail = outcome
    if kind == "fails" and "-o" not in argv and argv[:2] != ["ava", "calibrate"]:
        argv = [*argv, "-o", str(out_dir / "result")]
    rc = main(argv)
    captured = capsys.readouterr()
    if kind == "fails":
        lines = captured.err.splitlines()
        assert rc == 2, (rc, captured.err)
        assert len(lines) == 1, captured.err
        assert lines[0].startswith(f"qascore {argv[0]}: error: "), lines[0]
        assert detail in lines[0], lines[0]
        assert captured.out == ""
        assert list(out_dir.iterdir()) == [], "an output file was left behind"
    else:
        check, what = detail
        assert rc == 0, captured.err
        assert check(captured.out) is not False, f"{what}: {captured.out!r}"


FIFTY_MB_WORDS = 12_500_000  # "cat " * this = 50,000,000 bytes on one line


@pytest.mark.slow
def test_a_50_mb_line_is_scored_exactly(tmp_path, capsys):
    """One 50 MB prediction line (12.5 million tokens) against a one-word reference: read whole,
    scored exactly (precision 1 / 12.5 million), no truncation."""
    pred, ref = tmp_path / "p.txt", tmp_path / "r.txt"
    pred.write_bytes(b"cat " * FIFTY_MB_WORDS + b"\nthe dog\n")
    ref.write_bytes(b"cat\nthe dog\n")
    assert main(["rouge", "-p", str(pred), "-r", str(ref), "--types", "rouge1,rougeL", "--json", "--per-example"]) == 0
    doc = json.loads(capsys.readouterr().out)
    first = doc["examples"][0]
    for rouge_type in ("rouge1", "rougeL"):
        assert first[rouge_type]["precision"] == 1 / FIFTY_MB_WORDS
        assert first[rouge_type]["recall"] == 1.0


@pytest.mark.slow
def test_invalid_utf8_at_the_end_of_a_50_mb_line_names_line_and_byte(tmp_path, capsys):
    pred, ref = tmp_path / "p.txt", tmp_path / "r.txt"
    pred.write_bytes(b"cat " * FIFTY_MB_WORDS + b"\xff\n")
    ref.write_bytes(b"cat\n")
    assert main(["rouge", "-p", str(pred), "-r", str(ref), "-o", str(tmp_path / "out.json")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1
    assert err[0].startswith(f"qascore rouge: error: {pred}:1: invalid UTF-8 (invalid start byte at byte {4 * FIFTY_MB_WORDS}); "
                             "the input must be UTF-8"), err
    assert not (tmp_path / "out.json").exists()
