"""``qascore mrc`` and ``qascore nuggets rag``, ``score`` and ``assign`` streamed: output byte for
byte the one-pass API's whatever the chunk size and the order of the prediction file, predictions
from stdin, bounded reading, and errors midway."""
from __future__ import annotations

import contextlib
import io as _io
import json
import os
import random
import sys
import threading
from pathlib import Path

import pytest

import qascore
from qascore import io
from qascore.cli import main
from qascore.io import dumps
from qascore.lexical.coco import score_msmarco
from qascore.lexical.formats import read_dureader_predictions, read_dureader_references, read_msmarco
from qascore.lexical.mrc import score_dureader

WORDS = ["北京", "上海", "是", "的", "首都", "中国", "城市", "不", "yes", "我们", "可以", "。", "，", "1998年"]
EN = "the cat sat on a mat hello world there nothing at all of".split()


def dureader_files(tmp_path, n: int, seed: int = 0, shuffle_predictions: bool = False):
    """References of every question type (some without answers) and predictions with some
    missing, some extra, and yes/no labels."""
    rng = random.Random(seed)

    def text():
        return "".join(rng.choice(WORDS) for _ in range(rng.randint(0, 8)))

    refs, preds = [], []
    for q in range(n):
        qtype = rng.choice(["YES_NO", "ENTITY", "DESCRIPTION"])
        answers = [text() for _ in range(rng.randint(0, 3))]
        ref = {"question_id": q, "question_type": qtype, "answers": answers}
        if qtype == "YES_NO":
            ref["yesno_answers"] = [rng.choice(["Yes", "No", "Depends"]) for _ in answers]
        if qtype == "ENTITY":
            ref["entity_answers"] = [[text() for _ in range(rng.randint(0, 2))] for _ in answers]
        refs.append(ref)
        if rng.random() < 0.85:
            preds.append({"question_id": q, "answers": [text()], "yesno_answers": [rng.choice(["Yes", "No"])]})
    preds += [{"question_id": f"extra-{k}", "answers": [text()]} for k in range(3)]
    if shuffle_predictions:
        rng.shuffle(preds)
    p, r = tmp_path / f"pred{seed}.json", tmp_path / f"ref{seed}.json"
    p.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in preds), encoding="utf-8")
    r.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in refs), encoding="utf-8")
    return str(p), str(r)


def msmarco_files(tmp_path, n: int, seed: int = 0, shuffle_predictions: bool = False):
    rng = random.Random(seed)

    def text():
        return " ".join(rng.choice(EN) for _ in range(rng.randint(0, 9))).capitalize()

    refs = [{"query_id": q, "answers": [text() for _ in range(rng.randint(0, 2))]} for q in range(n)]
    preds = [{"query_id": q, "answers": [text()]} for q in range(n) if rng.random() < 0.9]
    preds.append({"query_id": "extra", "answers": ["nothing"]})
    if shuffle_predictions:
        rng.shuffle(preds)
    p, r = tmp_path / f"mm_pred{seed}.json", tmp_path / f"mm_ref{seed}.json"
    p.write_text("".join(json.dumps(x) + "\n" for x in preds))
    r.write_text("".join(json.dumps(x) + "\n" for x in refs))
    return str(p), str(r)


@contextlib.contextmanager
def fed_fifo(path: Path, data: bytes):
    """A FIFO at ``path`` that a thread fills with ``data`` while the block reads it."""
    os.mkfifo(path)

    def feed():
        with open(path, "wb") as f:
            f.write(data)

    writer = threading.Thread(target=feed)
    writer.start()
    try:
        yield path
    finally:
        writer.join(timeout=10)


def cli(capsysbinary, *argv) -> bytes:
    assert main(["mrc", *argv]) == 0
    return capsysbinary.readouterr().out


def one_pass_document(fmt: str, p: str, r: str, **options) -> bytes:
    """The --json --per-example document of the in-memory API over whole files."""
    if fmt == "dureader":
        result = score_dureader(read_dureader_predictions(p), read_dureader_references(r), per_question=True,
                                **options)
    else:
        result = score_msmarco(read_msmarco(p, candidates=True), read_msmarco(r))
    return (dumps(result.to_dict(per_question=True)) + "\n").encode()


@pytest.mark.parametrize("fmt,make", [("dureader", dureader_files), ("msmarco", msmarco_files)])
@pytest.mark.parametrize("shuffle", [False, True])
def test_streamed_document_equals_the_one_pass_api(tmp_path, capsysbinary, fmt, make, shuffle):
    p, r = make(tmp_path, 60, seed=3, shuffle_predictions=shuffle)
    options = {"alpha": 0.3, "beta": 0.7} if fmt == "dureader" else {}
    flags = [f"--{k}={v}" for k, v in options.items()]
    expected = one_pass_document(fmt, p, r, **options)
    for size in (1, 7, 60, 1000):
        got = cli(capsysbinary, "--format", fmt, "-p", p, "-r", r, *flags, "--json", "--per-example",
                  "--chunk-size", str(size))
        assert got == expected, size


@pytest.mark.parametrize("output", [[], ["--json"], ["--jsonl"], ["--per-example"], ["--jsonl", "--per-example"]])
def test_every_output_does_not_depend_on_the_chunk_size(tmp_path, capsysbinary, output):
    p, r = dureader_files(tmp_path, 45, seed=5)
    whole = cli(capsysbinary, "-p", p, "-r", r, *output)
    for size in (1, 2, 9):
        assert cli(capsysbinary, "-p", p, "-r", r, *output, "--chunk-size", str(size)) == whole, size


def test_counts_of_missing_and_unused_predictions(tmp_path, capsysbinary):
    p, r = dureader_files(tmp_path, 40, seed=7, shuffle_predictions=True)
    report = json.loads(cli(capsysbinary, "-p", p, "-r", r, "--json", "--chunk-size", "4"))
    refs = [json.loads(line) for line in open(r, encoding="utf-8")]
    preds = {json.loads(line)["question_id"] for line in open(p, encoding="utf-8")}
    assert report["n_scored"] == sum(1 for x in refs if x["answers"])
    assert report["n_missing_predictions"] == sum(1 for x in refs if x["answers"] and x["question_id"] not in preds)
    assert report["n_unused_predictions"] == 3


def test_predictions_from_stdin(tmp_path, capsysbinary, monkeypatch):
    p, r = dureader_files(tmp_path, 30, seed=9, shuffle_predictions=True)
    expected = cli(capsysbinary, "-p", p, "-r", r, "--jsonl", "--per-example")
    with open(p, "rb") as f:
        monkeypatch.setattr(sys, "stdin", _io.TextIOWrapper(_io.BytesIO(f.read())))
    assert cli(capsysbinary, "-p", "-", "-r", r, "--jsonl", "--per-example", "--chunk-size", "4") == expected


def test_predictions_from_a_fifo_are_read_once(tmp_path, capsysbinary):
    """A pipe named by a path (``<(...)`` in a shell) cannot be read twice: it is held whole."""
    p, r = dureader_files(tmp_path, 30, seed=10, shuffle_predictions=True)
    expected = cli(capsysbinary, "-p", p, "-r", r, "--json", "--per-example")
    with fed_fifo(tmp_path / "pred.fifo", Path(p).read_bytes()) as fifo:
        assert cli(capsysbinary, "-p", str(fifo), "-r", r, "--json", "--per-example", "--chunk-size", "4") == expected


def test_duplicate_id_in_a_fifo_names_both_lines(tmp_path, capsys):
    """A pipe cannot be read again to find the first line of a repeated id: its ids keep their lines."""
    _, r = dureader_files(tmp_path, 5, seed=12)
    data = b'{"question_id": 1, "answers": ["a"]}\n{"question_id": 2, "answers": ["b"]}\n' \
           b'{"question_id": 1, "answers": ["c"]}\n'
    with fed_fifo(tmp_path / "dup.fifo", data) as fifo:
        assert main(["mrc", "-p", str(fifo), "-r", r]) == 2
    assert f"{fifo}:3: duplicate question_id 1 (first on line 1)" in capsys.readouterr().err


def test_files_in_the_same_order_hold_one_record_at_a_time(tmp_path, monkeypatch):
    """Reading the predictions alongside references in the same order never keeps more than the
    record asked for (the join reads ahead only as far as the next id)."""
    p, _ = dureader_files(tmp_path, 50, seed=11)
    join = io.KeyedJoin(lambda path: ((x["question_id"], x) for _, x in io.iter_jsonl(path)), p)
    held = []
    for q in range(50):
        join.pop(q)
        held.append(len(join._waiting))
    assert max(held) == 0
    assert join.unmatched == 3


def test_error_in_a_later_chunk_names_the_line_and_leaves_no_file(tmp_path, capsys):
    p, r = dureader_files(tmp_path, 30, seed=13)
    lines = open(r, encoding="utf-8").read().splitlines()
    lines[24] = '{"question_id": 24, "question_type": "DESCRIPTION", "answers": "not a list"}'
    open(r, "w", encoding="utf-8").write("\n".join(lines) + "\n")
    target = tmp_path / "out.jsonl"
    code = main(["mrc", "-p", p, "-r", r, "--jsonl", "--per-example", "--chunk-size", "5", "-o", str(target)])
    err = capsys.readouterr().err
    assert code == 2 and f"{r}:25" in err and "answers" in err
    assert not target.exists() and not list(tmp_path.glob(".out.jsonl*"))


def test_duplicate_reference_id_found_midway(tmp_path, capsys):
    p, r = dureader_files(tmp_path, 20, seed=15)
    with open(r, "a", encoding="utf-8") as f:
        f.write('{"question_id": 3, "question_type": "DESCRIPTION", "answers": ["a"]}\n')
    code = main(["mrc", "-p", p, "-r", r, "--chunk-size", "4"])
    assert code == 2 and f"{r}:21: duplicate question_id 3 (first on line 4)" in capsys.readouterr().err


def test_nothing_to_score_is_an_error(tmp_path, capsys):
    r = tmp_path / "ref.json"
    r.write_text('{"question_id": 1, "question_type": "DESCRIPTION", "answers": []}\n')
    p = tmp_path / "pred.json"
    p.write_text('{"question_id": 1, "answers": ["a"]}\n')
    assert main(["mrc", "-p", str(p), "-r", str(r), "--chunk-size", "1"]) == 2
    assert "nothing to score" in capsys.readouterr().err


def test_real_files_stream_like_one_pass(shared_data, capsysbinary):
    d = shared_data / "mrc"
    for fmt, p, r in (("dureader", d / "dureader2_demo/pred_fake_answers.jsonl", d / "dureader2_demo/ref_from_demo_dev.jsonl"),
                      ("msmarco", d / "msmarco/dev_first_sentence_as_candidates.json", d / "msmarco/dev_as_references.json")):
        got = cli(capsysbinary, "--format", fmt, "-p", str(p), "-r", str(r), "--json", "--per-example",
                  "--chunk-size", "333")
        assert got == one_pass_document(fmt, str(p), str(r)), fmt


# --- qascore nuggets rag --------------------------------------------------------------------

def rag_file(tmp_path, n: int, seed: int = 0) -> str:
    rng = random.Random(seed)
    labels = ["support", "partial_support", "not_support", "weird"]
    lines = []
    for t in range(n):
        nuggets = [{"text": f"nugget {k} of {t}", "importance": rng.choice(["vital", "okay", "failed"]),
                    "assignment": rng.choice(labels)} for k in range(rng.randint(0, 6))]
        lines.append(json.dumps({"qid": f"t{t}", "query": f"question {t}", "answer_text": f"nugget 1 of {t}. other.",
                                 "nuggets": nuggets}))
    path = tmp_path / f"rag{seed}.jsonl"
    path.write_text("".join(line + "\n" for line in lines))
    return str(path)


def rag(capsysbinary, *argv) -> bytes:
    assert main(["nuggets", "rag", *argv]) == 0
    return capsysbinary.readouterr().out


@pytest.mark.parametrize("output", [[], ["--json"], ["--judge", "containment"], ["--json", "--judge", "containment"]])
def test_rag_output_does_not_depend_on_the_chunk_size(tmp_path, capsysbinary, output):
    path = rag_file(tmp_path, 23, seed=1)
    whole = rag(capsysbinary, "-p", path, *output, "--chunk-size", "1000")
    for size in (1, 4, 23):
        assert rag(capsysbinary, "-p", path, *output, "--chunk-size", str(size)) == whole, size


def test_rag_streamed_output_equals_the_one_pass_api(tmp_path, capsysbinary):
    from qascore.nuggets.formats import read_rag_assignments
    from qascore.nuggets.rag import rag_scores

    path = rag_file(tmp_path, 30, seed=2)
    scores = rag_scores(read_rag_assignments(path))
    assert rag(capsysbinary, "-p", path, "--chunk-size", "7") == "".join(line + "\n" for line in scores.lines()).encode()
    document = {"topics": scores.per_topic, "mean": scores.mean, "signature": scores.signature}
    assert rag(capsysbinary, "-p", path, "--json", "--chunk-size", "7") == (dumps(document) + "\n").encode()


def test_rag_judged_assignments_stream_to_their_file(tmp_path, capsysbinary):
    path = rag_file(tmp_path, 12, seed=3)
    whole, chunked = tmp_path / "whole.jsonl", tmp_path / "chunked.jsonl"
    rag(capsysbinary, "-p", path, "--judge", "containment", "--assignments-out", str(whole))
    rag(capsysbinary, "-p", path, "--judge", "containment", "--assignments-out", str(chunked), "--chunk-size", "5")
    assert chunked.read_bytes() == whole.read_bytes() and len(whole.read_text().splitlines()) == 12


def test_rag_error_in_a_later_chunk_leaves_no_file(tmp_path, capsys):
    path = rag_file(tmp_path, 10, seed=4)
    with open(path, "a") as f:
        f.write('{"qid": "t3", "nuggets": []}\n')  # a repeated topic on line 11
    target = tmp_path / "m.jsonl"
    assert main(["nuggets", "rag", "-p", path, "-o", str(target), "--chunk-size", "2"]) == 2
    err = capsys.readouterr().err
    assert f"{path}:11" in err and "repeats line 4" in err
    assert not target.exists() and not list(tmp_path.glob(".m.jsonl*"))


def test_rag_assignments_out_needs_a_judge(tmp_path, capsys):
    path = rag_file(tmp_path, 2)
    assert main(["nuggets", "rag", "-p", path, "--assignments-out", str(tmp_path / "a.jsonl")]) == 2
    assert "needs --judge" in capsys.readouterr().err


# --- qascore nuggets score ------------------------------------------------------------------

NUGGETS_DEMO = Path(qascore.__file__).parent / "demo_data" / "nuggets"


def run_file(tmp_path, interleave: bool = False) -> str:
    """Three copies of the demo's judged and unjudged runs under new tags, grouped by run or not."""
    from qascore.nuggets.formats import read_judgements, read_runs

    runs = [*read_judgements(NUGGETS_DEMO / "judgements.txt").runs.values(), *read_runs(NUGGETS_DEMO / "run.txt").values()]
    lines = [f"{qid} {run.tag}-{k} {r.docid} {r.text}\n" if r.text else f"{qid} {run.tag}-{k} NIL\n"
             for k in range(3) for run in runs for qid, items in run.responses.items() for r in items]
    if interleave:
        random.Random(0).shuffle(lines)
    path = tmp_path / ("interleaved.txt" if interleave else "grouped.txt")
    path.write_text("".join(lines))
    return str(path)


def nuggets_score(capsysbinary, *argv) -> bytes:
    assert main(["nuggets", "score", "-r", str(NUGGETS_DEMO / "answer_key.txt"), *argv]) == 0
    return capsysbinary.readouterr().out


@pytest.mark.parametrize("output", [[], ["--per-example"], ["--json", "--per-example"], ["--jsonl", "--per-example"],
                                    ["--method", "pourpre", "--weighting", "count", "--json"]])
def test_runs_scored_one_at_a_time_equal_all_together(tmp_path, capsysbinary, monkeypatch, output):
    from qascore.cli import nuggets as cli_nuggets
    from qascore.nuggets.nuggeteer import Nuggeteer
    from qascore.nuggets.pourpre import Pourpre

    path = run_file(tmp_path)
    sizes = []
    for cls in (Nuggeteer, Pourpre):
        original = cls.score
        monkeypatch.setattr(cls, "score", lambda self, runs, original=original, **kw: (
            sizes.append(len(runs)), original(self, runs, **kw))[1])
    streamed = nuggets_score(capsysbinary, "-p", path, *output)
    assert sizes == [1] * 9  # nine runs, each scored and written on its own
    monkeypatch.setattr(cli_nuggets, "_streams_runs", lambda args, model: False)
    sizes.clear()
    assert nuggets_score(capsysbinary, "-p", path, *output) == streamed
    assert sizes == [9]


def test_runs_whose_idf_comes_from_all_responses_are_scored_together(tmp_path, monkeypatch, capsysbinary):
    from qascore.nuggets.nuggeteer import Nuggeteer

    sizes = []
    original = Nuggeteer.score
    monkeypatch.setattr(Nuggeteer, "score", lambda self, runs, **kw: (sizes.append(len(runs)), original(self, runs, **kw))[1])
    nuggets_score(capsysbinary, "-p", run_file(tmp_path), "--idf", "runs")
    assert sizes == [9]


def test_interleaved_run_files_and_stdin_are_read_whole(tmp_path, monkeypatch):
    from qascore.nuggets.formats import iter_runs, read_runs

    interleaved = run_file(tmp_path, interleave=True)
    assert [r.tag for r in iter_runs(interleaved)] == list(read_runs(interleaved))
    grouped = run_file(tmp_path)
    expected = {tag: run.responses for tag, run in read_runs(grouped).items()}
    assert {run.tag: run.responses for run in iter_runs(grouped)} == expected
    with open(grouped, "rb") as f:
        monkeypatch.setattr(sys, "stdin", _io.TextIOWrapper(_io.BytesIO(f.read())))
    assert {run.tag: run.responses for run in iter_runs("-")} == expected


def test_assign_writes_runs_one_at_a_time_as_all_together(tmp_path, capsys, monkeypatch):
    from qascore.cli import nuggets as cli_nuggets
    from qascore.nuggets.nuggeteer import Nuggeteer

    path = run_file(tmp_path)
    sizes = []
    original = Nuggeteer.recall_table
    monkeypatch.setattr(Nuggeteer, "recall_table", lambda self, runs, **kw: (
        sizes.append(len(runs)), original(self, runs, **kw))[1])

    def assign(out, *extra):
        assert main(["nuggets", "assign", "-r", str(NUGGETS_DEMO / "answer_key.txt"), "-p", path, "-o", str(out),
                     *extra]) == 0
        return out.read_bytes(), capsys.readouterr().out

    streamed = assign(tmp_path / "streamed.txt")
    assert sizes == [1] * 9
    monkeypatch.setattr(cli_nuggets, "_streams_runs", lambda args, model: False)
    sizes.clear()
    assert assign(tmp_path / "whole.txt") == streamed and sizes == [9]
    sizes.clear()
    monkeypatch.undo()
    monkeypatch.setattr(Nuggeteer, "recall_table", lambda self, runs, **kw: (
        sizes.append(len(runs)), original(self, runs, **kw))[1])
    assert assign(tmp_path / "diag.txt", "--diagnostics", str(tmp_path / "d.jsonl")) == streamed
    assert sizes == [9]  # diagnostics are per nugget over every run: all together
