"""Where a user's shell, files and streams meet the readers: generated cases per class of edge.

1. One-shot inputs: every command reads each input option from a file, ``-``, a pipe
   (``/dev/fd/N``) and a named FIFO, and writes the same output (a differential check); inputs are
   larger than any head a format guess reads, so a lost head shows as a difference.
2. Formats: CSV and JSON arrays read as what they are (output equal to the JSON-lines run), a
   header never scored by accident, and an option that cannot apply to the input's format an error.
5. Broken streams: damaged gzip, a closed standard input or output, a missing NLTK model: one
   line on stderr naming the file or resource, exit 2, no output file left.
6. Long lines: the line reader against a plain-Python oracle at every block boundary.

A failing case ends with exit status 2, exactly one line on stderr, no traceback, and no output
file (not even a partial one).
"""
from __future__ import annotations

import csv
import gzip
import io
import json
import os
import random
import shlex
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import qascore.io as qio
from qascore.cli import main

DEMO = Path(__file__).parents[2] / "src" / "qascore" / "demo_data"
WORDS = ("the cat sat on a mat dog ran far away bees make honey crops grow sun light water boils at "
         "hundred degrees Jane Austen wrote novels Hamlet was written by Shakespeare").split()


# -- generated inputs (each over 8 KB, the most a format guess reads, and over a pipe's buffer) --

def _sentence(rng: random.Random, low: int = 3, high: int = 14) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(low, high)))


def _jsonl(records) -> bytes:
    return b"".join(json.dumps(r, ensure_ascii=False).encode() + b"\n" for r in records)


def _demo_lines(name: str) -> list[dict]:
    return [json.loads(line) for line in (DEMO / name).read_text(encoding="utf-8").splitlines() if line.strip()]


def make_inputs(root: Path) -> dict[str, Path]:
    rng = random.Random(36)
    files: dict[str, bytes] = {}
    n = 1500
    files["rouge_p.jsonl"] = _jsonl({"prediction": _sentence(rng)} for _ in range(n))
    files["rouge_r.jsonl"] = _jsonl({"reference": [_sentence(rng), _sentence(rng)] if i % 3 else _sentence(rng)}
                                    for i in range(n))
    preds, refs = _demo_lines("mrc/pred.jsonl"), _demo_lines("mrc/ref.jsonl")
    files["mrc_p.jsonl"] = _jsonl({**r, "question_id": copy * 100 + r["question_id"]}
                                  for copy in range(300) for r in preds)
    files["mrc_r.jsonl"] = _jsonl({**r, "question_id": copy * 100 + r["question_id"]}
                                  for copy in range(300) for r in refs)
    run = (DEMO / "nuggets/run.txt").read_text(encoding="utf-8").splitlines()
    files["run.txt"] = "".join(
        " ".join([line.split()[0], f"{line.split()[1]}-{copy}", *line.split()[2:]]) + "\n"
        for copy in range(150) for line in run if line.strip()).encode()
    files["key.txt"] = (DEMO / "nuggets/answer_key.txt").read_bytes()
    files["judged.txt"] = (DEMO / "nuggets/judgements.txt").read_bytes()
    rag = _demo_lines("nuggets/rag_assignments.jsonl")
    files["rag.jsonl"] = _jsonl({**r, "qid": f"{r['qid']}-{copy}"} for copy in range(100) for r in rag)
    bank = _demo_lines("exam/questions.jsonl")
    files["bank.jsonl"] = _jsonl({**q, "question_id": f"{q['question_id']}-{copy}"}
                                 for copy in range(120) for q in bank)
    files["good-system.jsonl"] = (DEMO / "exam/systems/good-system.jsonl").read_bytes()
    for system in ("partial-system", "off-topic-system"):
        files[f"{system}.jsonl"] = (DEMO / f"exam/systems/{system}.jsonl").read_bytes()
    files["gold.jsonl"] = (DEMO / "exam/gold.jsonl").read_bytes()
    files["official.txt"] = (DEMO / "exam/official.txt").read_bytes()
    ava = _demo_lines("ava_demo.jsonl")
    triples = [{**r, "candidate": f"{r['candidate']} {_sentence(rng, 0, 4)}"} for _ in range(60) for r in ava]
    files["ava.jsonl"] = _jsonl(triples)
    files["ava_q.jsonl"] = _jsonl({"question": t["question"]} for t in triples)
    files["ava_r.jsonl"] = _jsonl({"reference": t["reference"]} for t in triples)
    files["ava_p.jsonl"] = _jsonl({"prediction": t["candidate"]} for t in triples)
    paths = {}
    for name, data in files.items():
        (root / name).write_bytes(data)
        paths[name] = root / name
    return paths


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> dict[str, Path]:
    return make_inputs(tmp_path_factory.mktemp("inputs"))


# -- running the command with one input through a one-shot channel -----------------------------

def _writer(open_target, data: bytes) -> threading.Thread:
    def write() -> None:
        try:
            with open_target() as sink:
                sink.write(data)
        except OSError:  # the command stopped reading (an error): not the writer's business
            pass

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    return thread


def _release_fifo(path: Path, thread: threading.Thread) -> None:
    """Unblock a FIFO writer whose reader never came, and a reader waiting for a second writer."""
    deadline = time.monotonic() + 5
    while thread.is_alive() and time.monotonic() < deadline:
        try:
            os.close(os.open(path, os.O_RDONLY | os.O_NONBLOCK))
        except OSError:
            pass
        thread.join(0.05)


def run_cli(argv, capsys, monkeypatch, channel: str = "file", option_value: str | None = None,
            data: bytes | None = None, tmp: Path | None = None) -> tuple[int, str, str]:
    """Run ``qascore argv`` in process; with a ``channel`` other than ``file``, the argument
    ``option_value`` is replaced by ``-`` (``data`` on standard input), a ``/dev/fd/N`` pipe or a
    named FIFO of the same base name, each fed ``data`` by a writer thread."""
    argv = list(argv)
    cleanup = []
    if channel != "file":
        assert data is not None and option_value in argv and tmp is not None
        if channel == "stdin":
            read_end, write_end = os.pipe()
            thread = _writer(lambda: open(write_end, "wb"), data)
            monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(open(read_end, "rb")))
            replacement = "-"
        elif channel == "pipe":
            read_end, write_end = os.pipe()
            thread = _writer(lambda: open(write_end, "wb"), data)
            cleanup.append(lambda: os.close(read_end))
            replacement = f"/dev/fd/{read_end}"
        elif channel == "fifo":
            folder = tmp / f"fifo{time.monotonic_ns()}"
            folder.mkdir()
            fifo = folder / Path(option_value).name
            os.mkfifo(fifo)
            thread = _writer(lambda: open(fifo, "wb"), data)
            cleanup.append(lambda: _release_fifo(fifo, thread))
            replacement = str(fifo)
        else:  # pragma: no cover
            raise ValueError(channel)
        argv[argv.index(option_value)] = replacement
    capsys.readouterr()
    try:
        rc = main(argv)
    finally:
        for step in cleanup:
            step()
    out, err = capsys.readouterr()
    return rc, out, err


def _normalise_exam(out: str, system: str) -> object:
    """EXAM names a system by its article file; through ``-`` it is ``stdin``, through a pipe the
    descriptor's number: the figures are compared under the file's name."""
    doc = json.loads(out)
    for row in [*doc["systems"], *doc.get("records", [])]:
        if row["system"] not in ("partial-system", "off-topic-system", "gold"):
            row["system"] = system
    return doc


# (id, argv naming every input as a file, the inputs to send through each channel in turn)
def _commands(p: dict[str, Path]):
    s = {k: str(v) for k, v in p.items()}
    return [
        ("rouge", ["rouge", "-p", s["rouge_p.jsonl"], "-r", s["rouge_r.jsonl"], "--json", "--per-example",
                   "--types", "rouge1,rougeL,rougeLsum"], ["rouge_p.jsonl", "rouge_r.jsonl"]),
        ("mrc", ["mrc", "-p", s["mrc_p.jsonl"], "-r", s["mrc_r.jsonl"], "--json", "--per-example"],
         ["mrc_p.jsonl", "mrc_r.jsonl"]),
        ("nuggets-score", ["nuggets", "score", "-r", s["key.txt"], "-p", s["run.txt"], "--judgements",
                           s["judged.txt"], "--json", "--per-example"], ["key.txt", "run.txt", "judged.txt"]),
        ("nuggets-assign", ["nuggets", "assign", "-r", s["key.txt"], "-p", s["run.txt"]], ["key.txt", "run.txt"]),
        ("nuggets-rag", ["nuggets", "rag", "-p", s["rag.jsonl"], "--jsonl"], ["rag.jsonl"]),
        ("exam", ["exam", "-q", s["bank.jsonl"], "--articles", s["good-system.jsonl"], "--articles",
                  s["partial-system.jsonl"], "--gold", s["gold.jsonl"], "--json", "--per-example", "--no-progress"],
         ["bank.jsonl", "good-system.jsonl", "gold.jsonl"]),
        # the official leaderboard names systems by their article files, which stay files here
        ("exam-official", ["exam", "-q", s["bank.jsonl"], *(a for n in ("good", "partial", "off-topic")
                                                            for a in ("--articles", s[f"{n}-system.jsonl"])),
                           "--official", s["official.txt"], "--json", "--no-progress"], ["bank.jsonl", "official.txt"]),
        ("ava-input", ["ava", "score", "--model", "linear", "--label-field", "judged", s["ava.jsonl"], "--json"], ["ava.jsonl"]),
        ("ava-aligned", ["ava", "score", "--model", "linear", "--label-field", "judged", "-q", s["ava_q.jsonl"], "-r", s["ava_r.jsonl"],
                         "-p", s["ava_p.jsonl"], "--json"], ["ava_q.jsonl", "ava_r.jsonl", "ava_p.jsonl"]),
    ]


COMMAND_IDS = ["rouge", "mrc", "nuggets-score", "nuggets-assign", "nuggets-rag", "exam", "exam-official",
               "ava-input", "ava-aligned"]


def _outcome(command: str, argv, capsys, monkeypatch, tmp_path, **channel):
    """What a run produced, comparable across channels: stdout (and for ``assign`` its output file)."""
    out_file = None
    if command == "nuggets-assign":
        out_file = tmp_path / f"assessment{time.monotonic_ns()}.txt"
        argv = [*argv, "-o", str(out_file)]
    rc, out, err = run_cli(argv, capsys, monkeypatch, tmp=tmp_path, **channel)
    assert rc == 0, err
    if command.startswith("exam"):
        return _normalise_exam(out, "good-system")
    if out_file is not None:
        return out, out_file.read_text(encoding="utf-8")
    return out


@pytest.mark.parametrize("command", COMMAND_IDS)
def test_every_input_of_every_command_reads_the_same_through_stdin_a_pipe_and_a_fifo(
        command, inputs, capsys, monkeypatch, tmp_path):
    ident, argv, sent = next(c for c in _commands(inputs) if c[0] == command)
    expected = _outcome(command, argv, capsys, monkeypatch, tmp_path)
    for name in sent:
        data = inputs[name].read_bytes()
        for channel in ("stdin", "pipe", "fifo"):
            got = _outcome(command, argv, capsys, monkeypatch, tmp_path, channel=channel,
                           option_value=str(inputs[name]), data=data)
            assert got == expected, f"{ident}: {name} through {channel} differs from the file run"


@pytest.mark.parametrize("compress", [False, True])
def test_gzip_is_recognised_on_a_stream_by_its_first_bytes(compress, inputs, capsys, monkeypatch, tmp_path):
    """A compressed stream has no ``.gz`` name to tell it: its magic bytes do."""
    argv = ["rouge", "-p", str(inputs["rouge_p.jsonl"]), "-r", str(inputs["rouge_r.jsonl"]), "--json"]
    expected = run_cli(argv, capsys, monkeypatch)[1]
    data = inputs["rouge_p.jsonl"].read_bytes()
    data = gzip.compress(data) if compress else data
    for channel in ("stdin", "pipe"):
        rc, out, err = run_cli(argv, capsys, monkeypatch, channel, str(inputs["rouge_p.jsonl"]), data, tmp_path)
        assert (rc, out) == (0, expected), err


def _bash(script: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-c", script], cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          # the child imports the qascore this test imported (installed in CI, src/ in a dev tree)
                          env={**os.environ, "PYTHONPATH": str(Path(qio.__file__).resolve().parents[1])})


QASCORE = f"{shlex.quote(sys.executable)} -m qascore"


@pytest.mark.parametrize("how", ["process substitution", "named fifo"])
def test_a_question_bank_from_a_shell_pipe_keeps_its_head(how, inputs, tmp_path):
    """The issue's case, in a real shell: the bank's format is guessed from its first bytes and
    the bank is then read from the same open stream, not opened again."""
    bank, articles = shlex.quote(str(inputs["bank.jsonl"])), shlex.quote(str(inputs["good-system.jsonl"]))
    base = _bash(f"{QASCORE} exam -q {bank} --articles {articles} --jsonl --per-example", tmp_path)
    assert base.returncode == 0, base.stderr
    if how == "process substitution":
        script = f"{QASCORE} exam -q <(cat {bank}) --articles {articles} --jsonl --per-example"
    else:
        script = (f"mkfifo bank.fifo && (cat {bank} > bank.fifo &) && "
                  f"timeout 60 {QASCORE} exam -q bank.fifo --articles {articles} --jsonl --per-example")
    got = _bash(script, tmp_path)
    assert got.returncode == 0, got.stderr
    assert got.stdout == base.stdout


# -- 2. formats ----------------------------------------------------------------------------------

def _csv_bytes(header, rows) -> bytes:
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer)
    if header:
        writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue().encode()


HOSTILE = ["a, b, c", 'she said "no"', "line one\nline two", "trailing, comma,", "", " spaced ", "é, ü, 中文",
           "tab\there", '"quoted"', "semi;colon"]


@pytest.mark.parametrize("seed", range(4))
def test_csv_is_read_as_csv_and_scores_like_the_jsonl(seed, capsys, monkeypatch, tmp_path):
    rng = random.Random(seed)
    n = rng.randint(1, 60)
    preds = [rng.choice(HOSTILE) if rng.random() < 0.4 else _sentence(rng) for _ in range(n)]
    refs = [rng.choice(HOSTILE) if rng.random() < 0.4 else _sentence(rng) for _ in range(n)]
    (tmp_path / "p.jsonl").write_bytes(_jsonl({"prediction": t} for t in preds))
    (tmp_path / "r.jsonl").write_bytes(_jsonl({"reference": t} for t in refs))
    expected = run_cli(["rouge", "-p", str(tmp_path / "p.jsonl"), "-r", str(tmp_path / "r.jsonl"), "--json",
                        "--per-example"], capsys, monkeypatch)
    assert expected[0] == 0, expected[2]
    ids = [str(i) for i in range(n)]
    variants = [  # (prediction file bytes, options)
        (_csv_bytes(["id", "prediction"], zip(ids, preds)), ["--header"]),
        (_csv_bytes(["id", "answer"], zip(ids, preds)), ["--header", "--pred-field", "answer"]),
        (_csv_bytes(["id", "prediction"], zip(ids, preds)), ["--header", "--pred-field", "1"]),
        (_csv_bytes(None, zip(ids, preds)), ["--pred-field", "1"]),
    ]
    for number, (data, options) in enumerate(variants):
        path = tmp_path / f"p{number}.csv"
        path.write_bytes(data)
        got = run_cli(["rouge", "-p", str(path), "-r", str(tmp_path / "r.jsonl"), "--json", "--per-example",
                       *options], capsys, monkeypatch)
        assert got == expected, (options, got[2])


@pytest.mark.parametrize("command", ["rouge", "mrc", "nuggets-rag", "ava-input"])
def test_a_json_array_reads_like_json_lines(command, inputs, capsys, monkeypatch, tmp_path):
    ident, argv, sent = next(c for c in _commands(inputs) if c[0] == command)
    expected = _outcome(command, argv, capsys, monkeypatch, tmp_path)
    for name in sent:
        records = [json.loads(line) for line in inputs[name].read_text(encoding="utf-8").splitlines()]
        for indent in (None, 2):
            array = tmp_path / f"{Path(name).stem}.json"
            array.write_text(json.dumps(records, indent=indent, ensure_ascii=False), encoding="utf-8")
            changed = [str(array) if a == str(inputs[name]) else a for a in argv]
            assert _outcome(command, changed, capsys, monkeypatch, tmp_path) == expected, (name, indent)
            # through a pipe the array is recognised by its first character
            got = _outcome(command, changed, capsys, monkeypatch, tmp_path, channel="pipe",
                           option_value=str(array), data=array.read_bytes())
            assert got == expected, (name, indent, "pipe")


@pytest.mark.parametrize("indent", [None, 1])
def test_a_question_bank_as_a_json_array_reads_like_its_json_lines(indent, inputs, capsys, monkeypatch, tmp_path):
    ident, argv, _ = next(c for c in _commands(inputs) if c[0] == "exam")
    expected = _outcome("exam", argv, capsys, monkeypatch, tmp_path)
    records = [json.loads(line) for line in inputs["bank.jsonl"].read_text(encoding="utf-8").splitlines()]
    array = tmp_path / "bank.json"
    array.write_text(json.dumps(records, indent=indent), encoding="utf-8")
    changed = [str(array) if a == str(inputs["bank.jsonl"]) else a for a in argv]
    assert _outcome("exam", changed, capsys, monkeypatch, tmp_path) == expected
    assert _outcome("exam", changed, capsys, monkeypatch, tmp_path, channel="pipe", option_value=str(array),
                    data=array.read_bytes()) == expected


@pytest.mark.parametrize("layout", ["jsonl", "tsv"])
def test_a_paragraph_collection_and_an_as2_file_from_a_pipe_read_like_the_file(layout, tmp_path):
    from qascore.ava.data import read_as2
    from qascore.exam.articles import read_paragraph_collection

    rng = random.Random(layout)
    ids = [f"p{i}" for i in range(800)]
    texts = [_sentence(rng) for _ in ids]
    if layout == "jsonl":
        collection = _jsonl({"id": i, "text": t} for i, t in zip(ids, texts))
        as2 = _jsonl({"question": _sentence(rng), "candidates": [{"sentence": t, "label": n % 2}
                                                                 for n, t in enumerate(texts[k:k + 4])]}
                     for k in range(0, 800, 4))
    else:
        collection = "".join(f"{i}\t{t}\n" for i, t in zip(ids, texts)).encode()
        header = "QuestionID\tQuestion\tDocumentID\tDocumentTitle\tSentenceID\tSentence\tLabel\n"
        as2 = (header + "".join(f"Q{k // 4}\tq{k // 4}\tD\tT\tS{k}\t{t}\t{k % 2}\n"
                                for k, t in enumerate(texts))).encode()
    for reader, data in ((read_paragraph_collection, collection), (read_as2, as2)):
        path = tmp_path / f"data.{layout}"
        path.write_bytes(data)
        read_end, write_end = os.pipe()
        thread = _writer(lambda fd=write_end: open(fd, "wb"), data)
        try:
            assert reader(f"/dev/fd/{read_end}") == reader(path)
        finally:
            thread.join(5)
            os.close(read_end)


def _fails(argv, capsys, monkeypatch, tmp_path, fragment: str, **channel) -> None:
    """Exit 2, exactly one line on stderr holding ``fragment``, nothing on stdout, no file left."""
    before = set(tmp_path.rglob("*"))
    out_file = tmp_path / "out.json"
    rc, out, err = run_cli([*argv, "-o", str(out_file)], capsys, monkeypatch, tmp=tmp_path, **channel)
    lines = err.strip().splitlines()
    assert rc == 2, (rc, err)
    assert len(lines) == 1, err
    assert fragment in lines[0], lines[0]
    assert "Traceback" not in err and out == ""
    assert set(tmp_path.rglob("*")) == before, "a file was left behind"


HEADER_LINES = ["prediction", "reference", "Answer", "id,prediction", "question\tanswer", "qid,text,label",
                "ID, Candidate"]
NOT_HEADERS = ["the answer is 42", "Answer: 42", "the reference, I think, is fine", "cat"]


@pytest.mark.parametrize("first", HEADER_LINES)
def test_a_plain_line_file_that_starts_with_a_header_is_not_scored(first, capsys, monkeypatch, tmp_path):
    body = "\n".join([first, "the cat sat", "a dog ran"]) + "\n"
    (tmp_path / "p.txt").write_text(body, encoding="utf-8")
    (tmp_path / "r.txt").write_text(body, encoding="utf-8")
    argv = ["rouge", "-p", str(tmp_path / "p.txt"), "-r", str(tmp_path / "r.txt"), "--json"]
    _fails(argv, capsys, monkeypatch, tmp_path, "the first line looks like a header")
    rc, out, _ = run_cli([*argv, "--header"], capsys, monkeypatch)
    assert rc == 0 and json.loads(out)["n"] == 2
    rc, out, _ = run_cli([*argv, "--no-header"], capsys, monkeypatch)
    assert rc == 0 and json.loads(out)["n"] == 3


@pytest.mark.parametrize("first", NOT_HEADERS)
def test_prose_on_the_first_line_is_scored(first, capsys, monkeypatch, tmp_path):
    (tmp_path / "p.txt").write_text(f"{first}\nthe cat sat\n", encoding="utf-8")
    rc, out, err = run_cli(["rouge", "-p", str(tmp_path / "p.txt"), "-r", str(tmp_path / "p.txt"), "--json"],
                           capsys, monkeypatch)
    assert rc == 0 and json.loads(out)["n"] == 2, err


def _option_cases():
    """(id, files to write {name: bytes}, argv after the command, the message's fragment)."""
    lines, jsonl = b"the cat\na dog\n", b'{"prediction": "the cat", "reference": "the cat"}\n'
    array = b'[{"prediction": "the cat", "reference": "the cat", "question": "q"}]'
    for option in ("--pred-field", "--ref-field"):
        for name in ("p.txt", "p", "p.lines"):
            yield (f"rouge {option} on plain lines {name}", {name: lines, "r.txt": lines},
                   ["rouge", "-p", name, "-r", "r.txt", option, "prediction"], f"{option} 'prediction' cannot apply")
    for header in ("--header", "--no-header", "--tsv-header"):
        for p, r in (("p.jsonl", "r.jsonl"), ("p.json", "r.json")):
            data = jsonl if p.endswith("l") else array
            yield (f"rouge {header} on JSON {p}", {p: data, r: data}, ["rouge", "-p", p, "-r", r, header],
                   "--header / --no-header cannot apply")
    for option, value in (("--pred-field", "x"), ("--question-field", "x"), ("--ref-field", "x"),
                          ("--header", None), ("--format", "tsv")):
        yield (f"ava INPUT with {option}", {"t.jsonl": b'{"question": "q", "reference": "a", "candidate": "a"}\n'},
               ["ava", "score", "--model", "linear", "--label-field", "judged", "t.jsonl", option, *([value] if value else [])],
               f"{option} applies to -q/-r/-p files")
    for fields in (["--question-field", "question"], ["--pred-field", "prediction"]):
        yield (f"ava aligned plain lines with {fields[0]}", {"q.txt": b"q\n", "r.txt": b"a\n", "p.txt": b"a\n"},
               ["ava", "score", "--model", "linear", "--label-field", "judged", "-q", "q.txt", "-r", "r.txt", "-p", "p.txt", *fields],
               f"{fields[0]} 'question" if fields[0] == "--question-field" else "--pred-field 'prediction'")
    article = b'{"squid": "x:q", "title": "q", "paragraphs": [{"para_body": [{"text": "t"}]}]}\n'
    bank = b'{"query_id": "q", "question_id": "1", "question": "q?", "choices": {"a": "t", "b": "u"}, "key": "a"}\n'
    for option in (["--paragraphs", "paras.tsv"], ["--strip-query-prefix"]):
        for name in ("sys.jsonl", "sys.articles"):
            yield (f"exam {option[0]} with {name} read as original", {"bank.jsonl": bank, name: article,
                                                                    "paras.tsv": b"p1\tt\n"},
                   ["exam", "-q", "bank.jsonl", "--articles", name, *option],
                   f"{option[0]} applies to CAR-style runs, but the articles are read as original")
    yield ("unclosed CSV quote", {"p.csv": b'0,"the cat\n1,a dog\n', "r.txt": lines},
           ["rouge", "-p", "p.csv", "-r", "r.txt", "--pred-field", "1", "--no-header"], "p.csv:2: invalid CSV")
    yield ("CSV column out of range", {"p.csv": b"a,b\nc,d\n", "r.txt": lines},
           ["rouge", "-p", "p.csv", "-r", "r.txt", "--pred-field", "3"],
           "p.csv:1: expected at least 4 comma-separated columns, got 2")
    yield ("JSON array of strings", {"p.json": b'["the cat", "a dog"]', "r.txt": lines},
           ["rouge", "-p", "p.json", "-r", "r.txt"], "p.json: record 1: expected a JSON object, got str")
    yield ("JSON array record without the field", {"p.json": b'[{"prediction": "a"}, {"answer": "b"}]',
                                                   "r.txt": lines},
           ["rouge", "-p", "p.json", "-r", "r.txt"], "p.json: record 2: missing field 'prediction'")


OPTION_CASES = list(_option_cases())


@pytest.mark.parametrize("files,argv,fragment", [pytest.param(f, a, m, id=i) for i, f, a, m in OPTION_CASES])
def test_an_option_that_cannot_apply_or_a_bad_record_is_one_line(files, argv, fragment, capsys, monkeypatch,
                                                                  tmp_path):
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    monkeypatch.chdir(tmp_path)
    _fails(argv, capsys, monkeypatch, tmp_path, fragment)


# -- 5. broken or missing streams -----------------------------------------------------------------

def _damaged(data: bytes, how: str, rng: random.Random) -> bytes:
    packed = bytearray(gzip.compress(data))
    if how == "truncated":
        return bytes(packed[:rng.randint(11, len(packed) - 1)])
    if how == "crc":
        packed[-8] ^= 0xFF  # the CRC-32 of the trailer
        return bytes(packed)
    if how == "length":
        packed[-1] ^= 0x01  # the length of the trailer
        return bytes(packed)
    if how == "data":
        at = rng.randint(12, len(packed) - 9)
        packed[at] ^= 0x5A
        return bytes(packed)
    if how == "not gzip":
        return data
    raise ValueError(how)  # pragma: no cover


GZIP_DAMAGE = ["truncated", "crc", "length", "data", "not gzip"]


@pytest.mark.parametrize("how", GZIP_DAMAGE)
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("command,name", [("rouge", "rouge_p.jsonl"), ("nuggets-score", "run.txt"),
                                          ("exam", "bank.jsonl"), ("mrc", "mrc_r.jsonl")])
def test_a_damaged_gzip_input_is_one_line_naming_it(command, name, how, seed, inputs, capsys, monkeypatch,
                                                    tmp_path):
    if how == "not gzip" and seed:
        pytest.skip("one case is enough")
    rng = random.Random(f"{command}{how}{seed}")
    damaged = tmp_path / f"{name}.gz"
    damaged.write_bytes(_damaged(inputs[name].read_bytes(), how, rng))
    ident, argv, _ = next(c for c in _commands(inputs) if c[0] == command)
    argv = [str(damaged) if a == str(inputs[name]) else a for a in argv]
    before = set(tmp_path.rglob("*"))
    rc, out, err = run_cli([*argv, "-o", str(tmp_path / "out.json")], capsys, monkeypatch)
    lines = err.strip().splitlines()
    assert rc == 2 and len(lines) == 1 and "Traceback" not in err, err
    assert str(damaged) in lines[0] and "gzip" in lines[0], lines[0]
    assert set(tmp_path.rglob("*")) == before


@pytest.mark.parametrize("command", COMMAND_IDS)
def test_closed_stdin_and_stdout_are_one_line(command, inputs, tmp_path):
    ident, argv, sent = next(c for c in _commands(inputs) if c[0] == command)
    argv = [*argv, *(["-o", "out.txt"] if command == "nuggets-assign" else [])]
    with_stdin = [a if a != str(inputs[sent[-1]]) else "-" for a in argv]
    no_stdin = _bash(f"{QASCORE} {shlex.join(with_stdin)} <&-", tmp_path)
    no_stdout = _bash(f"{QASCORE} {shlex.join(argv)} >&-", tmp_path)
    for result, fragment in ((no_stdin, "standard input is closed"), (no_stdout, "standard output is closed")):
        lines = result.stderr.strip().splitlines()
        assert result.returncode == 2, result.stderr
        assert len(lines) == 1 and fragment in lines[0], result.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_missing_nltk_model_is_one_line_naming_it(inputs, capsys, monkeypatch, tmp_path):
    nltk = pytest.importorskip("nltk")

    def missing(*args, **kwargs):
        raise LookupError("Resource punkt_tab not found.\n  Please use the NLTK Downloader\n  ...")

    monkeypatch.setattr(nltk, "sent_tokenize", missing)
    for types in ("rougeLsum", "rouge1,rougeLsum"):
        _fails(["rouge", "-p", str(inputs["rouge_p.jsonl"]), "-r", str(inputs["rouge_r.jsonl"]), "--types", types,
                "--split-summaries"], capsys, monkeypatch, tmp_path, "python -m nltk.downloader punkt_tab")


# -- 6. long lines and block boundaries ------------------------------------------------------------

def _oracle_lines(data: bytes) -> list[str]:
    text = data.removeprefix(b"\xef\xbb\xbf").decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
    return text.removesuffix("\n").split("\n") if text else []


PIECES = [b"a", b"\r", b"\n", b"\r\n", "é".encode(), "中".encode(), b"word ", b"\xef\xbb\xbf"]


@pytest.mark.parametrize("seed", range(6))
def test_lines_at_every_block_boundary_match_python(seed, monkeypatch, tmp_path):
    rng = random.Random(seed)
    path = tmp_path / "lines.txt"
    for _ in range(300):
        data = b"".join(rng.choice(PIECES) for _ in range(rng.randint(0, 60)))
        if rng.random() < 0.3:
            data = b"\xef\xbb\xbf" + data
        if rng.random() < 0.2:
            data += b"x" * rng.randint(1, 200)  # a line over many blocks
        monkeypatch.setattr(qio, "_BLOCK", rng.randint(1, 9))
        path.write_bytes(data)
        expected = _oracle_lines(data)
        assert list(qio.iter_lines(path)) == list(enumerate(expected, 1)), (data, qio._BLOCK)


@pytest.mark.parametrize("megabytes", [3, 9])
def test_a_line_of_megabytes_is_read_whole_from_a_file_and_a_pipe(megabytes, tmp_path):
    line = b"w\xc3\xa9rd " * (megabytes * (1 << 20) // 6)
    data = b"first\n" + line + b"\r\nlast"
    path = tmp_path / "long.txt"
    path.write_bytes(data)
    expected = ["first", line.decode(), "last"]
    assert [text for _, text in qio.iter_lines(path)] == expected
    read_end, write_end = os.pipe()
    thread = _writer(lambda: open(write_end, "wb"), data)
    try:
        assert [text for _, text in qio.iter_lines(f"/dev/fd/{read_end}")] == expected
    finally:
        thread.join(5)
        os.close(read_end)


def test_read_head_hands_its_bytes_to_the_next_reader_of_a_pipe_once(tmp_path):
    data = b"".join(b'{"n": %d}\n' % i for i in range(5000))
    read_end, write_end = os.pipe()
    thread = _writer(lambda: open(write_end, "wb"), data)
    path = f"/dev/fd/{read_end}"
    try:
        head = qio.read_head(path)
        assert data.startswith(head) and len(head) == qio._HEAD_BYTES
        assert qio.read_head(path) == head  # a second guess reads nothing more
        assert [value["n"] for _, value in qio.iter_jsonl(path)] == list(range(5000))
    finally:
        thread.join(5)
        os.close(read_end)


def test_a_stale_head_never_reaches_another_pipe_of_the_same_name(tmp_path):
    """A run that guessed a format and then failed leaves a head behind; a later pipe that gets
    the same descriptor number reads its own bytes."""
    first_read, first_write = os.pipe()
    _writer(lambda: open(first_write, "wb"), b"old old old\n").join(5)
    path = f"/dev/fd/{first_read}"
    qio.read_head(path)
    second_read, second_write = os.pipe()
    os.dup2(second_read, first_read)  # the name /dev/fd/N now leads to the second pipe
    os.close(second_read)
    try:
        _writer(lambda: open(second_write, "wb"), b"new\n").join(5)
        assert list(qio.iter_lines(path)) == [(1, "new")]
    finally:
        os.close(first_read)


def test_gzip_errors_name_the_file_through_the_api(tmp_path):
    data = gzip.compress(b"a\nb\n" * 1000)
    for damaged, word in ((data[:-20], "truncated"), (data[:-8] + bytes(8), "damaged")):
        path = tmp_path / "x.txt.gz"
        path.write_bytes(damaged)
        with pytest.raises(qio.InputFormatError, match=rf"x\.txt\.gz: {word} gzip file"):
            list(qio.iter_lines(path))
