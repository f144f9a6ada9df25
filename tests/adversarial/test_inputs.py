"""Where a user's shell, files and streams meet the readers: generated cases per class of edge.

1. One-shot inputs: every command reads each input option from a file, ``-``, a pipe
   (``/dev/fd/N``) and a named FIFO, and writes the same output (a differential check); inputs are
   larger than any head a format guess reads, so a lost head shows as a difference. The options
   come from the command-line parser: one that could name a file and is neither run here nor
   listed with its reason fails test_every_file_option_is_classified. The library's readers that
   take a path are checked the same way.
2. Formats: CSV and JSON arrays read as what they are (output equal to the JSON-lines run), a
   header never scored by accident, and an option that cannot apply to the input's format an error.
5. Broken streams: damaged gzip, a closed standard input or output, a missing NLTK model: one
   line on stderr naming the file or resource, exit 2, no output file left.
6. Long lines: the line reader against a plain-Python oracle at every block boundary.

A failing case ends with exit status 2, exactly one line on stderr, no traceback, and no output
file (not even a partial one).
"""
from __future__ import annotations

import argparse
import contextlib
import csv
import dataclasses
import gzip
import io
import json
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

import qascore.io as qio
from qascore.cli import build_parser, main
from qascore.cli import OUTPUT_OPTIONS

from .common import fake_evouna, leaf_parsers

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
    files["run_small.txt"] = "".join(line + "\n" for line in run if line.strip() and not line.startswith("3.1 ")).encode()
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
    # nugget idf sources: documents one a line, and a df table
    files["corpus.txt"] = "".join(_sentence(rng) + "\n" for _ in range(600)).encode()
    files["df.txt"] = ("N 5000\n" + "".join(f"{w}\t{rng.randint(1, 4999)}\n" for w in WORDS)
                       + "".join(f"term{i}\t{rng.randint(1, 4999)}\n" for i in range(900))).encode()
    # a CAR-style run over a paragraph collection (the demo articles' paragraphs among fillers)
    collection, run_lines = [], []
    for article in _demo_lines("exam/systems/good-system.jsonl"):
        query = article["squid"].split(":", 1)[1]
        texts = [sentence["text"] for para in article["paragraphs"] for sentence in para["para_body"]]
        fillers = [_sentence(rng) for _ in range(60)]
        ranked = [*texts, *fillers] if query != "volcanoes" else [*fillers, *texts]
        for rank, text in enumerate(ranked, 1):
            pid = f"{query}-p{rank}"
            collection.append({"id": pid, "text": text})
            run_lines.append(f"{query} Q0 {pid} {rank} {100 - rank / 10:.2f} car-system\n")
    files["paragraphs.jsonl"] = _jsonl(collection)
    files["car.run"] = "".join(run_lines).encode()
    # per-example scores of two systems (qascore compare), and segments of two MT systems
    for system, shift in (("a", 0.0), ("b", 0.05)):
        files[f"scores_{system}.jsonl"] = _jsonl(
            {"id": f"q{i}", "rouge1": round(min(1.0, rng.random() + shift), 6), "exact": rng.random() < 0.5}
            for i in range(700))
    files["mt_ref.txt"] = "".join(_sentence(rng) + "\n" for _ in range(400)).encode()
    for system in ("a", "b"):
        files[f"mt_{system}.txt"] = "".join(_sentence(rng) + "\n" for _ in range(400)).encode()
    # EVOUNA for ava eval, train and calibrate, and a linear model for calibrate to update
    fake_evouna(root / "NQ.json", questions=40)
    files["NQ.json"] = (root / "NQ.json").read_bytes()
    files["linear.json"] = (Path(qio.__file__).parent / "models" / "ava" / "linear.json").read_bytes()
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


@contextlib.contextmanager
def one_shot(channel: str, name: str, data: bytes, tmp: Path, monkeypatch):
    """The name under which ``data`` can be read once: ``-`` (standard input), a ``/dev/fd/N``
    pipe or a named FIFO called ``name``, each fed by a writer thread."""
    cleanup = []
    if channel == "stdin":
        read_end, write_end = os.pipe()
        thread = _writer(lambda: open(write_end, "wb"), data)
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(open(read_end, "rb")))
        source = "-"
    elif channel == "pipe":
        read_end, write_end = os.pipe()
        thread = _writer(lambda: open(write_end, "wb"), data)
        cleanup.append(lambda: os.close(read_end))
        source = f"/dev/fd/{read_end}"
    elif channel == "fifo":
        folder = tmp / f"fifo{time.monotonic_ns()}"
        folder.mkdir()
        fifo = folder / name
        os.mkfifo(fifo)
        thread = _writer(lambda: open(fifo, "wb"), data)
        cleanup.append(lambda: _release_fifo(fifo, thread))
        source = str(fifo)
    else:  # pragma: no cover
        raise ValueError(channel)
    try:
        yield source
    finally:
        for step in cleanup:
            step()


def run_cli(argv, capsys, monkeypatch, channel: str = "file", option_value: str | None = None,
            data: bytes | None = None, tmp: Path | None = None) -> tuple[int, str, str]:
    """Run ``qascore argv`` in process; with a ``channel`` other than ``file``, the argument
    ``option_value`` is replaced by the :func:`one_shot` name of ``data`` (a FIFO of the same
    base name)."""
    argv = list(argv)
    with contextlib.ExitStack() as stack:
        if channel != "file":
            assert data is not None and option_value is not None and tmp is not None
            source = stack.enter_context(one_shot(channel, Path(option_value).name, data, tmp, monkeypatch))
            # the value alone, or after NAME= (qascore compare's systems)
            at = next(i for i, a in enumerate(argv) if a == option_value or a.endswith("=" + option_value))
            argv[at] = argv[at][:len(argv[at]) - len(option_value)] + source
        capsys.readouterr()
        rc = main(argv)
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


class _InputNames(dict):
    """File name -> its path under a folder, as a string."""

    def __init__(self, root: Path) -> None:
        super().__init__()
        self.root = root

    def __missing__(self, name: str) -> str:
        return str(self.root / name)


# -- 1. the differential check: every input option of every command, through every channel --------

@dataclasses.dataclass(frozen=True)
class Run:
    """One command line naming every input as a file. ``sends`` maps each input file to the
    option (argparse ``dest``) it is given to; each is sent in turn through ``-``, a pipe and a
    FIFO while the others stay files. ``outputs`` are files the run writes (compared too);
    ``names`` are patterns of the places where the output shows an input's name (the name of a
    pipe is not the file's), replaced before the comparison."""

    ident: str
    command: str
    argv: tuple[str, ...]
    sends: dict[str, str]
    outputs: tuple[str, ...] = ()
    names: tuple[str, ...] = ()


def _runs(root: Path) -> list[Run]:
    """The runs over the inputs make_inputs writes into ``root``."""
    s = _InputNames(root)
    model = "{tmp}/linear.json"  # a copy per run: calibrate updates it in place
    return [
        Run("rouge", "rouge", ("rouge", "-p", s["rouge_p.jsonl"], "-r", s["rouge_r.jsonl"], "--json", "--per-example",
                               "--types", "rouge1,rougeL,rougeLsum"),
            {"rouge_p.jsonl": "predictions", "rouge_r.jsonl": "references"}),
        Run("mrc", "mrc", ("mrc", "-p", s["mrc_p.jsonl"], "-r", s["mrc_r.jsonl"], "--json", "--per-example"),
            {"mrc_p.jsonl": "predictions", "mrc_r.jsonl": "references"}),
        Run("nuggets-score", "nuggets score", ("nuggets", "score", "-r", s["key.txt"], "-p", s["run.txt"],
                                               "--judgements", s["judged.txt"], "--json", "--per-example"),
            {"key.txt": "references", "run.txt": "predictions", "judged.txt": "judgements"}),
        Run("nuggets-score-idf", "nuggets score", ("nuggets", "score", "-r", s["key.txt"], "-p", s["run_small.txt"],
                                                   "--idf-corpus", s["corpus.txt"], "--json"),
            {"corpus.txt": "idf_corpus"}, names=(r"(?<=idf:corpus:)[^|]*",)),
        Run("nuggets-score-df", "nuggets score", ("nuggets", "score", "-r", s["key.txt"], "-p", s["run_small.txt"],
                                                  "--df-table", s["df.txt"], "--json"),
            {"df.txt": "df_table"}, names=(r"(?<=idf:df:)[^|]*",)),
        Run("nuggets-assign", "nuggets assign", ("nuggets", "assign", "-r", s["key.txt"], "-p", s["run.txt"],
                                                 "--judgements", s["judged.txt"], "-o", "{tmp}/assessment.txt",
                                                 "--diagnostics", "{tmp}/diagnostics.jsonl"),
            {"key.txt": "references", "run.txt": "predictions", "judged.txt": "judgements"},
            outputs=("assessment.txt", "diagnostics.jsonl")),
        Run("nuggets-assign-idf", "nuggets assign", ("nuggets", "assign", "-r", s["key.txt"], "-p", s["run_small.txt"],
                                                     "--idf-corpus", s["corpus.txt"], "-o", "{tmp}/assessment.txt"),
            {"corpus.txt": "idf_corpus"}, outputs=("assessment.txt",), names=(r"(?<=idf:corpus:)[^|]*",)),
        Run("nuggets-assign-df", "nuggets assign", ("nuggets", "assign", "-r", s["key.txt"], "-p", s["run_small.txt"],
                                                    "--df-table", s["df.txt"], "-o", "{tmp}/assessment.txt"),
            {"df.txt": "df_table"}, outputs=("assessment.txt",), names=(r"(?<=idf:df:)[^|]*",)),
        Run("nuggets-rag", "nuggets rag", ("nuggets", "rag", "-p", s["rag.jsonl"], "--jsonl"),
            {"rag.jsonl": "predictions"}),
        Run("exam", "exam", ("exam", "-q", s["bank.jsonl"], "--articles", s["good-system.jsonl"], "--articles",
                             s["partial-system.jsonl"], "--gold", s["gold.jsonl"], "--json", "--per-example",
                             "--no-progress"),
            {"bank.jsonl": "questions", "good-system.jsonl": "articles", "gold.jsonl": "gold"}),
        # the official leaderboard names systems by their article files, which stay files here
        Run("exam-official", "exam", ("exam", "-q", s["bank.jsonl"], *(a for n in ("good", "partial", "off-topic")
                                                                      for a in ("--articles", s[f"{n}-system.jsonl"])),
                                      "--official", s["official.txt"], "--json", "--no-progress"),
            {"bank.jsonl": "questions", "official.txt": "official"}),
        Run("exam-car", "exam", ("exam", "-q", s["bank.jsonl"], "--articles", s["car.run"], "--paragraphs",
                                 s["paragraphs.jsonl"], "--json", "--per-example", "--no-progress"),
            {"car.run": "articles", "paragraphs.jsonl": "paragraphs"}),
        Run("ava-input", "ava score", ("ava", "score", "--model", "linear", "--label-field", "judged", s["ava.jsonl"],
                                       "--json"),
            {"ava.jsonl": "input"}),
        Run("ava-aligned", "ava score", ("ava", "score", "--model", "linear", "--label-field", "judged", "-q",
                                         s["ava_q.jsonl"], "-r", s["ava_r.jsonl"], "-p", s["ava_p.jsonl"], "--json"),
            {"ava_q.jsonl": "questions", "ava_r.jsonl": "references", "ava_p.jsonl": "predictions"}),
        Run("ava-eval", "ava eval", ("ava", "eval", "--model", "linear", s["NQ.json"], "--json", "--no-progress"),
            {"NQ.json": "input"}),
        Run("ava-train", "ava train", ("ava", "train", "--model", "linear", "--data", s["NQ.json"], "--out",
                                       "{tmp}/trained"),
            {"NQ.json": "data"}, outputs=("trained/linear.json",), names=(r'(?<="data":")[^"]*',)),
        Run("ava-calibrate", "ava calibrate", ("ava", "calibrate", model, "--data", s["NQ.json"]),
            {"NQ.json": "data"}, outputs=("linear.json",), names=(r'(?<="data":")[^"]*',)),
        Run("compare", "compare", ("compare", f"A={s['scores_a.jsonl']}", f"B={s['scores_b.jsonl']}", "-n", "200",
                                   "--json"),
            {"scores_a.jsonl": "inputs", "scores_b.jsonl": "inputs"}),
        Run("compare-corpus", "compare", ("compare", f"A={s['mt_a.txt']}", f"B={s['mt_b.txt']}", "-r", s["mt_ref.txt"],
                                          "-m", "bleu", "chrf", "-n", "100", "--json"),
            {"mt_a.txt": "inputs", "mt_ref.txt": "references"}),
        Run("bleu", "bleu", ("bleu", s["mt_ref.txt"], "-i", s["mt_a.txt"], s["mt_b.txt"], "-m", "bleu", "chrf",
                             "-f", "json"),
            {"mt_ref.txt": "refs", "mt_b.txt": "input"}, names=(r'(?<="system": ")[^"]*',)),
    ]


# Every option of every command whose value is free text (no type, no choices) names a file the
# command reads, a file it writes, or something else; the differential check covers the first
# kind, and a new option that is in none of these lists fails test_every_file_option_is_classified.
NOT_READ_AS_A_STREAM = {
    # a model or judge is named by a path whose suffix says what it is (a .json linear model or
    # a model directory): a directory cannot come through a pipe
    ("nuggets rag", "judge"), ("exam", "judge"), ("exam", "solver"), ("exam", "qa_model"), ("exam", "tokenizer"),
    ("ava score", "model"), ("ava eval", "model"), ("ava train", "backbone"),
    ("ava calibrate", "model_dir"), ("ava triage", "model_dir"),
    # a folder of cached verdicts, read and written
    ("nuggets rag", "cache"), ("exam", "cache"), ("ava score", "cache"), ("ava eval", "cache"),
    # a folder written
    ("ava train", "out"),
}
NOT_FILES = {
    ("rouge", "pred_field"), ("rouge", "ref_field"), ("rouge", "tokenizer"), ("rouge", "types"),
    ("ava score", "pred_field"), ("ava score", "ref_field"), ("ava score", "question_field"),
    ("ava score", "label_field"), ("ava train", "model"),
    ("compare", "baseline"), ("compare", "group_by"), ("compare", "id_field"), ("compare", "metrics"),
    ("compare", "system_field"),
    # sacrebleu's test-set options (refused: test sets are never downloaded) and --encoding
    ("bleu", "download"), ("bleu", "echo"), ("bleu", "encoding"), ("bleu", "langpair"), ("bleu", "origlang"),
    ("bleu", "subset"), ("bleu", "test_set"),
}
# Inputs read by a command the differential check does not run here, and why.
NOT_RUN = {
    # fitting the triage runs the network over EVOUNA's train split: minutes; it reads --data with
    # the reader ava calibrate's differential case covers (ava.data.load_evouna)
    ("ava triage", "data"): "reads --data as ava calibrate does; fitting runs the network for minutes",
}


def _free_text_options(parser) -> set[str]:
    """The dests of the options whose value could name a file: not a flag, no choices, no type
    (int, float and the range-checked numbers of qascore.cli.options are types)."""
    return {action.dest for action in parser._actions
            if action.nargs != 0 and action.choices is None and action.type is None
            and not isinstance(action, (argparse._HelpAction, argparse._VersionAction))}


def test_every_file_option_is_classified(tmp_path):
    """Each free-text option of each command is an input the differential check runs, an output,
    or listed above with its reason: a new input option fails here until a Run covers it."""
    sent = {(run.command, dest) for run in _runs(tmp_path) for dest in run.sends.values()}
    unclassified = []
    for command, parser in leaf_parsers(build_parser()):
        for dest in sorted(_free_text_options(parser)):
            key = (command, dest)
            if dest in OUTPUT_OPTIONS or key in sent or key in NOT_READ_AS_A_STREAM or key in NOT_FILES or key in NOT_RUN:
                continue
            unclassified.append(key)
    assert not unclassified, f"options not covered by the differential check: {unclassified}"
    known = {command for command, _ in leaf_parsers(build_parser())}
    stale = {key for key in sent | NOT_READ_AS_A_STREAM | NOT_FILES | set(NOT_RUN) if key[0] not in known}
    assert not stale, f"entries for commands that no longer exist: {stale}"


def _commands(p: dict[str, Path]):
    """(id, argv, the inputs sent) of the runs the other checks reuse."""
    return [(run.ident, list(run.argv), list(run.sends)) for run in _runs(_root(p))]


def _root(inputs: dict[str, Path]) -> Path:
    return next(iter(inputs.values())).parent


COMMAND_IDS = ["rouge", "mrc", "nuggets-score", "nuggets-assign", "nuggets-rag", "exam", "exam-official",
               "ava-input", "ava-aligned"]
CHANNELS = ("stdin", "pipe", "fifo")
# qascore bleu keeps sacrebleu's command line, where '-' is a file name; its systems come from
# standard input when -i is left out (test_bleu_reads_its_systems_from_standard_input)
KNOWN_GAPS = {("bleu", "stdin"): "qascore bleu opens '-' as a file named '-' (as sacrebleu does)"}


def _outcome(run: Run, capsys, monkeypatch, tmp_path, **channel) -> object:
    """What a run produced, comparable across channels: stdout and the files it wrote, with the
    places that name an input replaced."""
    folder = tmp_path / f"run{time.monotonic_ns()}"
    folder.mkdir()
    if "{tmp}/linear.json" in run.argv:
        shutil.copyfile(Path(qio.__file__).parent / "models" / "ava" / "linear.json", folder / "linear.json")
    argv = [a.replace("{tmp}", str(folder)) for a in run.argv]
    rc, out, err = run_cli(argv, capsys, monkeypatch, tmp=tmp_path, **channel)
    assert rc == 0, err
    texts = [text.replace(str(folder), "<folder>")
             for text in (out, *((folder / name).read_text(encoding="utf-8") for name in run.outputs))]
    for pattern in run.names:
        texts = [re.sub(pattern, "<input>", text) for text in texts]
    if run.command == "exam":
        return _normalise_exam(out, "good-system"), texts[1:]
    return texts


_EXPECTED: dict[str, object] = {}


@pytest.mark.parametrize("channel", CHANNELS)
@pytest.mark.parametrize("ident,name", [(r.ident, name) for r in _runs(Path("inputs")) for name in r.sends])
def test_every_input_of_every_command_reads_the_same_through_stdin_a_pipe_and_a_fifo(
        ident, name, channel, inputs, capsys, monkeypatch, tmp_path, request):
    run = next(r for r in _runs(_root(inputs)) if r.ident == ident)
    if (run.command, channel) in KNOWN_GAPS:
        request.applymarker(pytest.mark.xfail(reason=KNOWN_GAPS[run.command, channel], strict=True))
    if ident not in _EXPECTED:
        _EXPECTED[ident] = _outcome(run, capsys, monkeypatch, tmp_path)
    got = _outcome(run, capsys, monkeypatch, tmp_path, channel=channel, option_value=str(inputs[name]),
                   data=inputs[name].read_bytes())
    assert got == _EXPECTED[ident], f"{ident}: {name} through {channel} differs from the file run"


def test_bleu_reads_its_systems_from_standard_input(inputs, capsys, monkeypatch, tmp_path):
    """sacrebleu's way of giving a system on stdin: leave -i out."""
    argv = ["bleu", str(inputs["mt_ref.txt"]), "-m", "bleu", "chrf", "-f", "json"]
    expected = run_cli([*argv, "-i", str(inputs["mt_a.txt"])], capsys, monkeypatch)
    read_end, write_end = os.pipe()
    _writer(lambda: open(write_end, "wb"), inputs["mt_a.txt"].read_bytes())
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(open(read_end, "rb")))
    assert expected[0] == 0 and run_cli(argv, capsys, monkeypatch) == expected


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


def _run_named(inputs: dict[str, Path], ident: str) -> Run:
    return next(r for r in _runs(_root(inputs)) if r.ident == ident)


def _with_file(run: Run, old: Path, new: Path) -> Run:
    return dataclasses.replace(run, argv=tuple(str(new) if a == str(old) else a for a in run.argv))


@pytest.mark.parametrize("ident", ["rouge", "mrc", "nuggets-rag", "ava-input", "compare"])
def test_a_json_array_reads_like_json_lines(ident, inputs, capsys, monkeypatch, tmp_path):
    run = _run_named(inputs, ident)
    expected = _outcome(run, capsys, monkeypatch, tmp_path)
    for name in run.sends:
        records = [json.loads(line) for line in inputs[name].read_text(encoding="utf-8").splitlines()]
        for indent in (None, 2):
            array = tmp_path / f"{Path(name).stem}.json"
            array.write_text(json.dumps(records, indent=indent, ensure_ascii=False), encoding="utf-8")
            changed = _with_file(run, inputs[name], array)
            if ident == "compare":
                changed = dataclasses.replace(changed, argv=tuple(a.replace(str(inputs[name]), str(array))
                                                                  for a in changed.argv))
            assert _outcome(changed, capsys, monkeypatch, tmp_path) == expected, (name, indent)
            # through a pipe the array is recognised by its first character
            got = _outcome(changed, capsys, monkeypatch, tmp_path, channel="pipe",
                           option_value=str(array), data=array.read_bytes())
            assert got == expected, (name, indent, "pipe")


@pytest.mark.parametrize("indent", [None, 1])
def test_a_question_bank_as_a_json_array_reads_like_its_json_lines(indent, inputs, capsys, monkeypatch, tmp_path):
    run = _run_named(inputs, "exam")
    expected = _outcome(run, capsys, monkeypatch, tmp_path)
    records = [json.loads(line) for line in inputs["bank.jsonl"].read_text(encoding="utf-8").splitlines()]
    array = tmp_path / "bank.json"
    array.write_text(json.dumps(records, indent=indent), encoding="utf-8")
    changed = _with_file(run, inputs["bank.jsonl"], array)
    assert _outcome(changed, capsys, monkeypatch, tmp_path) == expected
    assert _outcome(changed, capsys, monkeypatch, tmp_path, channel="pipe", option_value=str(array),
                    data=array.read_bytes()) == expected


def _api_inputs(rng: random.Random) -> dict[str, tuple[str, Callable[[str], object], bytes]]:
    """Readers of the public API that take a path, each with a generated input (over 8 KB):
    name -> (file name, reader, bytes)."""
    from qascore.ava.data import read_as2
    from qascore.exam.articles import read_articles, read_paragraph_collection
    from qascore.exam.questions import read_question_bank

    ids = [f"p{i}" for i in range(600)]
    texts = [_sentence(rng) for _ in ids]
    header = "QuestionID\tQuestion\tDocumentID\tDocumentTitle\tSentenceID\tSentence\tLabel\n"
    qrels = "".join(f"q{rng.randint(0, 40)}-{i} {rng.choice('0Q')} d{i} {rng.randint(-1, 3)}\n" for i in range(700))
    bank = _demo_lines("exam/questions.jsonl")
    return {
        "qrels": ("qrels.txt", qio.read_qrels, qrels.encode()),
        "paragraphs (JSON lines)": ("paras.jsonl", read_paragraph_collection,
                                    _jsonl({"id": i, "text": t} for i, t in zip(ids, texts))),
        "paragraphs (TSV)": ("paras.tsv", read_paragraph_collection,
                             "".join(f"{i}\t{t}\n" for i, t in zip(ids, texts)).encode()),
        "AS2 (JSON lines)": ("as2.jsonl", read_as2, _jsonl(
            {"question": _sentence(rng), "candidates": [{"sentence": t, "label": n % 2}
                                                        for n, t in enumerate(texts[k:k + 4])]}
            for k in range(0, 600, 4))),
        "AS2 (TSV)": ("as2.tsv", read_as2, (header + "".join(f"Q{k // 4}\tq{k // 4}\tD\tT\tS{k}\t{t}\t{k % 2}\n"
                                                              for k, t in enumerate(texts))).encode()),
        "question bank": ("bank.jsonl", read_question_bank,
                          _jsonl({**q, "question_id": f"{q['question_id']}-{c}"} for c in range(40) for q in bank)),
        "articles": ("system.jsonl", read_articles,
                     _jsonl({"squid": f"demo:q{k}", "title": f"q{k}", "paragraphs": [
                         {"para_body": [{"text": t}]} for t in texts[k:k + 5]]} for k in range(0, 600, 5))),
    }


API_READERS = list(_api_inputs(random.Random(0)))


@pytest.mark.parametrize("channel", CHANNELS)
@pytest.mark.parametrize("reader", API_READERS)
def test_the_api_readers_read_stdin_a_pipe_and_a_fifo_like_the_file(reader, channel, monkeypatch, tmp_path):
    name, read, data = _api_inputs(random.Random(reader))[reader]
    path = tmp_path / name
    path.write_bytes(data)
    expected = read(str(path))
    with one_shot(channel, name, data, tmp_path, monkeypatch) as source:
        got = read(source)
    assert _comparable(got) == _comparable(expected)


def _comparable(value):
    """Articles and question banks compared as what scoring reads from them (a system read from
    a pipe is named by the pipe: its articles are compared, not its name)."""
    if hasattr(value, "systems") and hasattr(value, "articles"):
        return [value.articles(system) for system in value.systems]
    if hasattr(value, "query_ids") and hasattr(value, "__iter__"):
        return value.query_ids, list(value)
    return value


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


COLUMN_NAMES = ["id", "qid", "query_id", "question", "prediction", "predictions", "reference", "references",
                "answer", "answers", "candidate", "text", "label", "system", "summary", "hypothesis", "target"]


@pytest.mark.parametrize("seed", range(6))
def test_generated_header_lines_are_never_scored_and_prose_is(seed, capsys, monkeypatch, tmp_path):
    """First lines made of column names (any case, comma or tab separated, with other names
    beside) are refused without --header / --no-header; first lines of prose are scored."""
    rng = random.Random(seed)
    body = "".join(_sentence(rng) + "\n" for _ in range(5))
    (tmp_path / "r.txt").write_text("x\n" * 6, encoding="utf-8")
    (tmp_path / "r5.txt").write_text("reference\n" + "x\n" * 5, encoding="utf-8")  # --header skips both firsts
    for _ in range(4):
        cells = rng.sample(COLUMN_NAMES, rng.randint(1, 3)) + [f"col{rng.randint(0, 9)}"] * rng.randint(0, 1)
        rng.shuffle(cells)
        cells = [c.upper() if rng.random() < 0.3 else c.title() if rng.random() < 0.3 else c for c in cells]
        header = rng.choice([",", "\t", ", "]).join(cells)
        (tmp_path / "p.txt").write_text(header + "\n" + body, encoding="utf-8")
        argv = ["rouge", "-p", str(tmp_path / "p.txt"), "-r", str(tmp_path / "r.txt"), "--json"]
        _fails(argv, capsys, monkeypatch, tmp_path, "the first line looks like a header")
        rc, out, err = run_cli(["rouge", "-p", str(tmp_path / "p.txt"), "-r", str(tmp_path / "r5.txt"), "--json",
                                "--header"], capsys, monkeypatch)
        assert rc == 0 and json.loads(out)["n"] == 5, (header, err)
        prose = " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 9)))
        (tmp_path / "p.txt").write_text(prose + "\n" + body, encoding="utf-8")
        rc, out, err = run_cli(argv, capsys, monkeypatch)
        assert rc == 0 and json.loads(out)["n"] == 6, (prose, err)


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


def _from_stdin(run: Run, inputs: dict[str, Path], argv: list[str]) -> list[str]:
    """``argv`` with the run's last input read from ``-`` (qascore bleu: from standard input by
    leaving out ``-i`` and its files, sacrebleu's way)."""
    if run.command == "bleu":
        at = argv.index("-i")
        end = next(k for k in range(at + 1, len(argv)) if argv[k].startswith("-"))
        return argv[:at] + argv[end:]
    last = str(inputs[list(run.sends)[-1]])
    return [a[:len(a) - len(last)] + "-" if a == last or a.endswith("=" + last) else a for a in argv]


@pytest.mark.parametrize("ident", [*COMMAND_IDS, "ava-eval", "compare", "bleu"])
def test_closed_stdin_and_stdout_are_one_line(ident, inputs, tmp_path):
    run = _run_named(inputs, ident)
    argv = [a.replace("{tmp}", str(tmp_path)) for a in run.argv]
    no_stdin = _bash(f"{QASCORE} {shlex.join(_from_stdin(run, inputs, argv))} <&-", tmp_path)
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
