"""Where results go and how a run ends: the output side of every ``qascore`` command.

Generated cases, each checked the same way:

* outputs: every writing command, to every kind of path (a new file under several umasks, an
  existing file of another mode, a symlink, a dangling symlink, ``/dev/null``, a FIFO,
  ``/dev/stdout``): exit 0, the bytes equal those of a run into a plain file, the path keeps its
  kind (a device stays a device, a link a link), the mode is the old file's or the umask's, and
  no ``.part`` file is left;
* an output that is one of the inputs (the same name, a hard link, a symlink) or a directory:
  exit 2, one line on stderr naming the user's path, the input unchanged, nothing left;
* signals (SIGINT, SIGTERM, SIGHUP) sent to a running ``qascore rouge`` during start-up, while
  it writes, and while it waits on a FIFO input: exit 128 + signum, one line on stderr, no
  ``.part`` and no output file;
* error messages: argparse errors, file names with control characters, integer options out of
  range, malformed model files, standard input, text that is not UTF-8: exit 2, one line, naming
  the option and value or the file (``<stdin>`` for ``-``), nothing left.
"""
from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from qascore.cli import OUTPUT_OPTIONS, build_parser, main

from .common import fake_evouna, leaf_parsers, option_dests

DEMO = Path(__file__).parents[2] / "src" / "qascore" / "demo_data"
QASCORE = [sys.executable, "-c", "import sys; from qascore.cli import main; sys.exit(main())"]
WORDS = "the cat sat on a mat dog ran far away quick brown fox jumps over lazy".split()


# -- helpers ---------------------------------------------------------------------------------------

def run_cli(argv: list[str], capsys) -> tuple[int, str, str]:
    """``main(argv)`` in-process: (status, stdout, stderr); argparse's exit is a status too."""
    try:
        rc = main(argv)
    except SystemExit as stop:
        rc = stop.code if isinstance(stop.code, int) else 1
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


def assert_one_line_error(rc: int, err: str, command: str, *fragments: str) -> str:
    lines = err.splitlines()
    assert rc == 2, (rc, err)
    assert len(lines) == 1, err
    assert lines[0].startswith(f"qascore {command}".rstrip() + ":" if not command else f"qascore {command}"), lines[0]
    assert ": error: " in lines[0] and "Traceback" not in err and "usage:" not in err, lines[0]
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    return lines[0]


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".part") or p.name.startswith("."))


def copy_demo(tmp_path: Path, *relative: str) -> list[str]:
    """Copies of demo files (a test that failed to refuse an output must not damage the demo data)."""
    folder = tmp_path / "in"
    folder.mkdir(exist_ok=True)
    paths = []
    for rel in relative:
        target = folder / Path(rel).name
        shutil.copyfile(DEMO / rel, target)
        paths.append(str(target))
    return paths


def lines_file(path: Path, n: int, seed: int) -> str:
    rng = random.Random(seed)
    path.write_text("".join(" ".join(rng.choices(WORDS, k=8)) + "\n" for _ in range(n)))
    return str(path)


# Each writing command: (name on stderr, a function of tmp_path giving (argv without -o, inputs)).
def _rouge(tmp):
    (tmp / "in").mkdir(exist_ok=True)
    inputs = [lines_file(tmp / "in" / "p.txt", 50, 1), lines_file(tmp / "in" / "r.txt", 50, 2)]
    return ["rouge", "-p", inputs[0], "-r", inputs[1], "--json", "--per-example"], inputs


def _mrc(tmp):
    inputs = copy_demo(tmp, "mrc/pred.jsonl", "mrc/ref.jsonl")
    return ["mrc", "-p", inputs[0], "-r", inputs[1]], inputs


def _exam(tmp):
    inputs = copy_demo(tmp, "exam/questions.jsonl", "exam/systems/good-system.jsonl")
    return ["exam", "-q", inputs[0], "--articles", inputs[1]], inputs


def _ava(tmp):
    inputs = copy_demo(tmp, "ava_demo.jsonl")
    return ["ava", "score", "--model", "linear", "--label-field", "judged", inputs[0]], inputs


def _rag(tmp):
    inputs = copy_demo(tmp, "nuggets/rag_assignments.jsonl")
    return ["nuggets", "rag", "-p", inputs[0], "--jsonl"], inputs


def _nugget_inputs(tmp) -> list[str]:
    """The demo key, run and judgements, the run without its question the key lacks (a warning)."""
    inputs = copy_demo(tmp, "nuggets/answer_key.txt", "nuggets/run.txt", "nuggets/judgements.txt")
    run = Path(inputs[1])
    run.write_text("".join(line for line in run.read_text().splitlines(keepends=True) if not line.startswith("3.1 ")))
    return inputs


def _nuggets_score(tmp):
    inputs = _nugget_inputs(tmp)
    return ["nuggets", "score", "-r", inputs[0], "-p", inputs[1], "--judgements", inputs[2], "--json"], inputs


def _nuggets_assign(tmp):
    inputs = _nugget_inputs(tmp)
    return ["nuggets", "assign", "-r", inputs[0], "-p", inputs[1], "--judgements", inputs[2]], inputs


def _ava_eval(tmp):
    (tmp / "in").mkdir(exist_ok=True)
    inputs = [str(fake_evouna(tmp / "in" / "NQ.json", questions=20))]
    return ["ava", "eval", "--model", "linear", inputs[0], "--json", "--no-progress"], inputs


def _compare(tmp):
    (tmp / "in").mkdir(exist_ok=True)
    rng = random.Random(7)
    inputs = []
    for name in ("a", "b"):
        path = tmp / "in" / f"{name}.jsonl"
        path.write_text("".join(json.dumps({"id": i, "rouge1": rng.random()}) + "\n" for i in range(50)))
        inputs.append(str(path))
    return ["compare", *inputs, "-n", "100", "--json"], inputs


WRITERS = {"rouge": _rouge, "mrc": _mrc, "exam": _exam, "ava score": _ava, "nuggets rag": _rag,
           "nuggets score": _nuggets_score, "nuggets assign": _nuggets_assign, "ava eval": _ava_eval,
           "compare": _compare}


def command_of(argv: list[str]) -> str:
    return argv[0]


@pytest.fixture
def restore_umask():
    previous = os.umask(0o022)
    os.umask(previous)
    yield
    os.umask(previous)


def reference_output(tmp_path: Path, argv: list[str], capsys) -> bytes:
    """The bytes of a run into a plain new file: what every other kind of output must receive."""
    plain = tmp_path / "reference-run"
    plain.mkdir()
    rc, _, err = run_cli([*argv, "-o", str(plain / "out")], capsys)
    assert rc == 0, err
    return (plain / "out").read_bytes()


# -- outputs: every command, every kind of path ----------------------------------------------------

def _new_file(out: Path):
    return out, lambda: None


def _existing(mode: int):
    def make(out: Path):
        out.write_text("old results\n")
        out.chmod(mode)
        return out, lambda: stat.S_IMODE(out.stat().st_mode) == mode or f"mode {oct(out.stat().st_mode)}"
    return make


def _symlink(out: Path):
    target = out.parent / "target.txt"
    target.write_text("old results\n")
    out.symlink_to(target.name)
    return target, lambda: (out.is_symlink() and os.readlink(out) == target.name) or "the link was replaced"


def _dangling_symlink(out: Path):
    target = out.parent / "not-yet.txt"
    out.symlink_to(target.name)
    return target, lambda: out.is_symlink() or "the link was replaced"


PATH_KINDS = {
    "new file, umask 022": (0o022, _new_file, 0o644),
    "new file, umask 027": (0o027, _new_file, 0o640),
    "new file, umask 002": (0o002, _new_file, 0o664),
    "existing file 0644 under umask 077": (0o077, _existing(0o644), None),
    "existing file 0600 under umask 022": (0o022, _existing(0o600), None),
    "existing file 0664 under umask 022": (0o022, _existing(0o664), None),
    "symlink to a file": (0o022, _symlink, None),
    "dangling symlink": (0o022, _dangling_symlink, 0o644),
}


@pytest.mark.parametrize("kind", list(PATH_KINDS))
@pytest.mark.parametrize("command", list(WRITERS))
def test_output_to_a_regular_file_or_link(command, kind, tmp_path, capsys, restore_umask):
    argv, _ = WRITERS[command](tmp_path)
    expected = reference_output(tmp_path, argv, capsys)
    umask, make, new_mode = PATH_KINDS[kind]
    folder = tmp_path / "out"
    folder.mkdir()
    written, keeps_kind = make(folder / "results")
    os.umask(umask)
    rc, _, err = run_cli([*argv, "-o", str(folder / "results")], capsys)
    os.umask(0o022)
    assert rc == 0, err
    assert written.read_bytes() == expected
    assert keeps_kind() in (None, True), keeps_kind()
    if new_mode is not None:
        assert stat.S_IMODE(written.stat().st_mode) == new_mode, oct(written.stat().st_mode)
    assert leftovers(folder) == []


@pytest.mark.parametrize("command", list(WRITERS))
def test_output_to_dev_null_is_written_through(command, tmp_path, capsys):
    argv, _ = WRITERS[command](tmp_path)
    before = os.stat("/dev/null")
    rc, _, err = run_cli([*argv, "-o", "/dev/null"], capsys)
    assert rc == 0, err
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and (after.st_ino, after.st_mode) == (before.st_ino, before.st_mode)


@pytest.mark.parametrize("command", list(WRITERS))
def test_output_to_a_fifo_is_written_through(command, tmp_path, capsys):
    argv, _ = WRITERS[command](tmp_path)
    expected = reference_output(tmp_path, argv, capsys)
    folder = tmp_path / "out"
    folder.mkdir()
    fifo = folder / "results.fifo"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()), daemon=True)
    reader.start()
    rc, _, err = run_cli([*argv, "-o", str(fifo)], capsys)
    reader.join(timeout=30)
    assert rc == 0, err
    assert received == [expected]
    assert stat.S_ISFIFO(fifo.lstat().st_mode), "the FIFO was replaced by a file"
    assert leftovers(folder) == []


@pytest.mark.parametrize("command", ["rouge", "mrc", "nuggets rag"])
def test_output_to_dev_stdout_is_standard_output(command, tmp_path, capsys):
    argv, _ = WRITERS[command](tmp_path)
    expected = reference_output(tmp_path, argv, capsys)
    done = subprocess.run([*QASCORE, *argv, "-o", "/dev/stdout"], capture_output=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == expected


def _same_name(path: str) -> str:
    return path


def _hard_link(path: str) -> str:
    link = Path(path).with_name("hard-link-" + Path(path).name)
    os.link(path, link)
    return str(link)


def _symlink_to(path: str) -> str:
    link = Path(path).with_name("sym-link-" + Path(path).name)
    link.symlink_to(path)
    return str(link)


def _relative_spelling(path: str) -> str:
    return os.path.relpath(Path(path).parent / ".." / Path(path).parent.name / Path(path).name)


ALIASES = {"the same name": _same_name, "a hard link": _hard_link, "a symlink": _symlink_to,
           "another spelling": _relative_spelling}


@pytest.mark.parametrize("alias", list(ALIASES))
@pytest.mark.parametrize("which", [0, -1], ids=["first input", "last input"])
@pytest.mark.parametrize("command", list(WRITERS))
def test_an_output_that_is_an_input_is_refused(command, which, alias, tmp_path, capsys):
    argv, inputs = WRITERS[command](tmp_path)
    victim = inputs[which]
    before = Path(victim).read_bytes()
    out = ALIASES[alias](victim)
    rc, stdout, err = run_cli([*argv, "-o", out], capsys)
    line = assert_one_line_error(rc, err, command_of(argv), "the output is one of the inputs")
    assert ".part" not in line
    assert Path(victim).read_bytes() == before, "the input was overwritten"
    assert stdout == ""
    assert leftovers(Path(victim).parent) == []


@pytest.mark.parametrize("command", list(WRITERS))
def test_a_directory_as_output_is_refused(command, tmp_path, capsys):
    argv, _ = WRITERS[command](tmp_path)
    folder = tmp_path / "out"
    folder.mkdir()
    rc, _, err = run_cli([*argv, "-o", str(folder)], capsys)
    assert_one_line_error(rc, err, command_of(argv), "Is a directory", str(folder))
    assert list(folder.iterdir()) == []


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("command", list(WRITERS))
def test_a_full_device_is_a_one_line_error_naming_it(command, tmp_path, capsys):
    argv, _ = WRITERS[command](tmp_path)
    rc, _, err = run_cli([*argv, "-o", "/dev/full"], capsys)
    assert_one_line_error(rc, err, command_of(argv), "No space left on device", "/dev/full")
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


@pytest.mark.parametrize("where", ["a missing folder", "a file used as a folder"])
@pytest.mark.parametrize("command", ["rouge", "ava score"])
def test_output_errors_name_the_users_path_not_the_temporary_one(command, where, tmp_path, capsys):
    argv, _ = WRITERS[command](tmp_path)
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    out = str(tmp_path / "missing" / "out.json") if where == "a missing folder" else str(blocker / "out.json")
    rc, _, err = run_cli([*argv, "-o", out], capsys)
    line = assert_one_line_error(rc, err, command_of(argv), out)
    assert ".part" not in line


def test_every_command_that_writes_a_file_is_a_writer_here():
    """A command with -o/--output (from the parser) is checked above; a new one fails here."""
    writing = {command for command, parser in leaf_parsers(build_parser()) if "output" in option_dests(parser)}
    assert writing == set(WRITERS), writing ^ set(WRITERS)


# The other options naming a file a command writes: (command, the option, what the run needs besides).
SECOND_OUTPUTS = {
    ("nuggets assign", "diagnostics"): (_nuggets_assign, ["--diagnostics"]),
    ("nuggets rag", "assignments_out"): (_rag, ["--judge", "containment", "--assignments-out"]),
    ("exam", "records"): (_exam, ["--records"]),
    ("exam", "graded"): (_exam, ["--graded"]),
}
# Written only with an extra installed, or a folder: checked where they are tested.
OTHER_OUTPUTS = {("exam", "plot"): "needs qascore[plot] (matplotlib)", ("ava train", "out"): "a folder"}


def test_every_second_output_is_checked():
    found = {(command, dest) for command, parser in leaf_parsers(build_parser())
             for dest in option_dests(parser) & set(OUTPUT_OPTIONS) if dest != "output"}
    assert found == set(SECOND_OUTPUTS) | set(OTHER_OUTPUTS), found ^ (set(SECOND_OUTPUTS) | set(OTHER_OUTPUTS))


@pytest.mark.parametrize("kind", ["symlink to a file", "existing file 0664 under umask 022", "fifo", "an input"])
@pytest.mark.parametrize("which", list(SECOND_OUTPUTS), ids=[f"{c} {d}" for c, d in SECOND_OUTPUTS])
def test_a_second_output_keeps_what_stands_at_its_path(which, kind, tmp_path, capsys):
    """What -o guarantees holds for every other file a command writes."""
    make_argv, flags = SECOND_OUTPUTS[which]
    argv, inputs = make_argv(tmp_path)
    plain = tmp_path / "plain"
    plain.mkdir()
    rc, _, err = run_cli([*argv, *flags, str(plain / "second"), "-o", str(plain / "main")], capsys)
    assert rc == 0, err
    expected = (plain / "second").read_bytes()
    folder = tmp_path / "out"
    folder.mkdir()
    target = folder / "second"
    if kind == "an input":
        before = Path(inputs[0]).read_bytes()
        rc, out, err = run_cli([*argv, *flags, inputs[0], "-o", str(folder / "main")], capsys)
        assert_one_line_error(rc, err, command_of(argv), "the output is one of the inputs")
        assert Path(inputs[0]).read_bytes() == before and list(folder.iterdir()) == []
        return
    if kind == "fifo":
        os.mkfifo(target)
        received = []
        reader = threading.Thread(target=lambda: received.append(target.read_bytes()), daemon=True)
        reader.start()
        rc, _, err = run_cli([*argv, *flags, str(target), "-o", str(folder / "main")], capsys)
        reader.join(timeout=30)
        assert rc == 0, err
        assert received == [expected] and stat.S_ISFIFO(target.lstat().st_mode)
    else:
        written, keeps_kind = PATH_KINDS[kind][1](target)
        rc, _, err = run_cli([*argv, *flags, str(target), "-o", str(folder / "main")], capsys)
        assert rc == 0, err
        assert written.read_bytes() == expected and keeps_kind() in (None, True), keeps_kind()
    assert leftovers(folder) == []


# -- signals ---------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def big_inputs(tmp_path_factory) -> tuple[str, str]:
    """Predictions and references long enough that a run is still writing when it is signalled."""
    folder = tmp_path_factory.mktemp("big")
    return lines_file(folder / "p.txt", 300_000, 3), lines_file(folder / "r.txt", 300_000, 4)


def _caught(pid: int, signum: int) -> bool:
    """Whether the process has a handler for ``signum`` (qascore installs its own at start-up)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    mask = int(next(line.split()[1] for line in status.splitlines() if line.startswith("SigCgt:")), 16)
    return bool(mask >> (signum - 1) & 1)


def _wait_for(condition, process, timeout: float = 60.0) -> None:
    end = time.monotonic() + timeout
    while not condition():
        assert process.poll() is None, "the run ended before it could be signalled"
        assert time.monotonic() < end, "timed out waiting for the run"
        time.sleep(0.002)


MOMENTS = ("start-up", "writing", "waiting on a FIFO input")
SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads signal masks from /proc")
@pytest.mark.parametrize("moment", MOMENTS)
@pytest.mark.parametrize("signum", SIGNALS, ids=[s.name for s in SIGNALS])
def test_a_signal_ends_the_run_cleanly(signum, moment, big_inputs, tmp_path):
    folder = tmp_path / "out"
    folder.mkdir()
    out = folder / "results.jsonl"
    predictions, references = big_inputs
    feeder = None
    if moment == "waiting on a FIFO input":
        predictions = str(tmp_path / "predictions.fifo")
        os.mkfifo(predictions)
    argv = ["rouge", "-p", predictions, "-r", references, "--jsonl", "--per-example", "--no-progress",
            "-o", str(out)]
    process = subprocess.Popen([*QASCORE, *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path)
    try:
        if moment == "start-up":
            _wait_for(lambda: _caught(process.pid, signal.SIGTERM), process)
        elif moment == "writing":
            _wait_for(lambda: any(p.name.endswith(".part") for p in folder.iterdir()), process)
        else:
            feeder = open(predictions, "wb")  # noqa: SIM115 -- held open so the run waits for more
            feeder.write(b"the cat sat\n" * 10)
            feeder.flush()
            _wait_for(lambda: _caught(process.pid, signal.SIGTERM), process)
            time.sleep(1.0)  # past start-up: the run is blocked reading the FIFO for more
        process.send_signal(signum)
        stdout, stderr = process.communicate(timeout=60)
    finally:
        if feeder is not None:
            with contextlib.suppress(OSError):
                feeder.close()
        if process.poll() is None:
            process.kill()
            process.wait()
    lines = stderr.decode().splitlines()
    why = "interrupted" if signum == signal.SIGINT else f"stopped by {signum.name}"
    assert process.returncode == 128 + signum, (process.returncode, stderr.decode()[-2000:])
    assert lines == [f"qascore rouge: {why}"], stderr.decode()[-2000:]
    assert stdout == b""
    assert list(folder.iterdir()) == [], "the run left a file behind"


def _waiting_runs(tmp_path: Path) -> dict[str, list[str]]:
    """Every command that reads a file, its first input a FIFO nobody writes to (the run waits on
    it): name -> argv (writing into ``tmp_path / "out"``)."""
    out = tmp_path / "out"
    runs = {}
    for number, (command, make) in enumerate(WRITERS.items()):
        folder = tmp_path / f"w{number}"
        folder.mkdir()
        argv, inputs = make(folder)
        fifo = folder / f"waiting-{Path(inputs[0]).name}"
        os.mkfifo(fifo)
        runs[command] = [str(fifo) if a == inputs[0] else a for a in argv] + ["-o", str(out / f"{number}.out")]
    # EVOUNA is told by its .json name; each run its own FIFO (two readers of one FIFO would race)
    for name in ("bleu.fifo", "NQ-train.json", "NQ-calibrate.json"):
        os.mkfifo(tmp_path / name)
    shutil.copyfile(DEMO.parent / "models" / "ava" / "linear.json", tmp_path / "model.json")
    runs["bleu"] = ["bleu", str(tmp_path / "bleu.fifo"), "-i", str(DEMO / "rouge" / "predictions.jsonl")]
    runs["ava train"] = ["ava", "train", "--model", "linear", "--data", str(tmp_path / "NQ-train.json"), "--out",
                         str(out / "model")]
    runs["ava calibrate"] = ["ava", "calibrate", str(tmp_path / "model.json"), "--data",
                             str(tmp_path / "NQ-calibrate.json")]
    return runs


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads signal masks from /proc")
def test_a_signal_while_any_command_waits_on_its_input_ends_it_cleanly(tmp_path):
    """Each command, started at once and signalled (SIGINT, SIGTERM and SIGHUP in turn) while it
    waits on a FIFO input: exit 128 + the signal, one line, nothing written."""
    runs = _waiting_runs(tmp_path)
    (tmp_path / "out").mkdir()
    processes = {name: subprocess.Popen([*QASCORE, *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path)
                 for name, argv in runs.items()}
    try:
        for process in processes.values():
            _wait_for(lambda p=process: _caught(p.pid, signal.SIGTERM), process, timeout=120)
        time.sleep(1.0)  # past start-up: each run is blocked opening or reading its FIFO
        sent = {name: SIGNALS[k % len(SIGNALS)] for k, name in enumerate(processes)}
        for name, process in processes.items():
            process.send_signal(sent[name])
        for name, process in processes.items():
            stdout, stderr = process.communicate(timeout=60)
            why = "interrupted" if sent[name] == signal.SIGINT else f"stopped by {sent[name].name}"
            assert (process.returncode, stderr.decode().splitlines()) == (
                128 + sent[name], [f"qascore {runs[name][0]}: {why}"]), (name, stderr.decode()[-2000:])
            assert stdout == b"", name
    finally:
        for process in processes.values():
            if process.poll() is None:
                process.kill()
                process.wait()
    assert list((tmp_path / "out").iterdir()) == [], "a run left a file behind"
    assert (tmp_path / "model.json").read_bytes() == (DEMO.parent / "models" / "ava" / "linear.json").read_bytes()


def test_an_ignored_hangup_stays_ignored(big_inputs, tmp_path):
    """``nohup qascore ...``: a SIGHUP ignored when the command starts does not end it."""
    predictions, references = big_inputs
    out = tmp_path / "results.json"
    process = subprocess.Popen([*QASCORE, "rouge", "-p", predictions, "-r", references, "--types", "rouge1",
                                "--no-progress", "--json", "-o", str(out)],
                               stderr=subprocess.PIPE, preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN))
    _wait_for(lambda: any(p.name.endswith(".part") for p in tmp_path.iterdir()), process)
    process.send_signal(signal.SIGHUP)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 0, stderr
    assert out.exists()


# -- error messages --------------------------------------------------------------------------------

def _rouge_files(w):
    return ["-p", w("p.txt", b"a b\n"), "-r", w("r.txt", b"a b\n")]


PARSER_ERRORS = [
    ("rouge", lambda w: ["rouge", "-p", w("p.txt", b"a\n")], "the following arguments are required: -r/--references"),
    ("rouge", lambda w: ["rouge", *_rouge_files(w), "--no-such-option"], "unrecognized arguments: --no-such-option"),
    ("rouge", lambda w: ["rouge", *_rouge_files(w), "--multi-ref", "worst"], "argument --multi-ref: invalid choice"),
    ("rouge", lambda w: ["rouge", *_rouge_files(w), "--gamma", "x"], "argument --gamma: invalid float value: 'x'"),
    ("rouge", lambda w: ["rouge", *_rouge_files(w), "--json", "--jsonl"], "not allowed with argument"),
    ("mrc", lambda w: ["mrc", "--variant", "nope"], "argument --variant: invalid choice"),
    ("nuggets", lambda w: ["nuggets", "score", "--method", "exact"], "argument --method: invalid choice"),
    ("nuggets", lambda w: ["nuggets", "frobnicate"], "invalid choice: 'frobnicate'"),
    ("exam", lambda w: ["exam", "--articles", "a.jsonl"], "the following arguments are required: -q/--questions"),
    ("exam", lambda w: ["exam", "-q", "q", "--articles", "a", "--top-k", "many"], "argument --top-k: invalid int"),
    ("ava", lambda w: ["ava", "score", "--device", "tpu"], "argument --device: invalid choice"),
    ("ava", lambda w: ["ava", "train", "--model", "linear"], "the following arguments are required"),
    ("qascore", lambda w: ["frobnicate"], "invalid choice: 'frobnicate'"),
    ("qascore", lambda w: [], "the following arguments are required: command"),
]


@pytest.mark.parametrize("command,argv_of,fragment", PARSER_ERRORS,
                         ids=[f"{c}:{f[:40]}" for c, _, f in PARSER_ERRORS])
def test_argparse_errors_are_one_line(command, argv_of, fragment, tmp_path, capsys):
    def w(name, data):
        (tmp_path / name).write_bytes(data)
        return str(tmp_path / name)

    rc, out, err = run_cli(argv_of(w), capsys)
    line = assert_one_line_error(rc, err, "" if command == "qascore" else command, fragment)
    assert line.startswith("qascore")
    assert out == ""


def _checked_options():
    """(command, option string, a value it refuses) for every option of every command that takes a
    typed value or a choice, from the parser: a new option is checked without a line here."""
    for command, parser in leaf_parsers(build_parser()):
        for action in parser._actions:
            if not action.option_strings or action.nargs == 0:
                continue
            if action.choices is not None:
                yield command, action.option_strings[-1], "no-such-choice"
            elif action.type is not None:
                yield command, action.option_strings[-1], "x1"


CHECKED_OPTIONS = list(_checked_options())


@pytest.mark.parametrize("command,option,value", CHECKED_OPTIONS, ids=[f"{c} {o}" for c, o, _ in CHECKED_OPTIONS])
def test_every_bad_option_value_is_one_line_naming_it(command, option, value, capsys):
    rc, out, err = run_cli([*command.split(), option, value], capsys)
    assert_one_line_error(rc, err, command.split()[0], option, value)
    assert out == ""


@pytest.mark.parametrize("command", [c for c, _ in leaf_parsers(build_parser())])
def test_an_unknown_option_is_one_line_for_every_command(command, capsys):
    """Named, or (argparse checks them first) the missing required arguments are."""
    rc, out, err = run_cli([*command.split(), "--no-such-option"], capsys)
    line = assert_one_line_error(rc, err, command.split()[0])
    assert "--no-such-option" in line or "the following arguments are required" in line, line


# Control characters a file name may hold, and how messages show them.
NAMES = {"newline": ("a\nb.txt", "a\\nb.txt"), "carriage return": ("a\rb.txt", "a\\rb.txt"),
         "escape": ("a\x1b[31mb.txt", "a\\x1b[31mb.txt"), "tab": ("a\tb.txt", "a\\tb.txt"),
         "line separator": ("a\u2028b.txt", "a\\u2028b.txt")}


@pytest.mark.parametrize("problem", ["missing", "not UTF-8", "empty", "too short"])
@pytest.mark.parametrize("name", list(NAMES))
def test_a_file_name_with_control_characters_stays_on_one_line(name, problem, tmp_path, capsys):
    raw, shown = NAMES[name]
    bad = tmp_path / raw
    if problem != "missing":
        bad.write_bytes({"not UTF-8": b"caf\xe9\n", "empty": b"", "too short": b"a\n"}[problem])
    ref = tmp_path / "r.txt"
    ref.write_bytes(b"a\nb\n")
    out = tmp_path / "out"
    out.mkdir()
    rc, _, err = run_cli(["rouge", "-p", str(bad), "-r", str(ref), "-o", str(out / "x")], capsys)
    line = assert_one_line_error(rc, err, "rouge")
    assert shown in line, line
    assert list(out.iterdir()) == []


CHUNKED = {
    "rouge": lambda w: ["rouge", "-p", w("p.txt", b"a\n"), "-r", w("r.txt", b"a\n")],
    "mrc": lambda w: ["mrc", "-p", str(DEMO / "mrc/pred.jsonl"), "-r", str(DEMO / "mrc/ref.jsonl")],
    "ava score": lambda w: ["ava", "score", "--model", "linear", "--label-field", "judged", str(DEMO / "ava_demo.jsonl")],
    "nuggets rag": lambda w: ["nuggets", "rag", "-p", str(DEMO / "nuggets/rag_assignments.jsonl")],
}
BAD_CHUNK_SIZES = ["0", "-1", str(2**70), "1180591620717411303424", "1e3", "ten", "1.5"]


@pytest.mark.parametrize("value", BAD_CHUNK_SIZES)
@pytest.mark.parametrize("command", list(CHUNKED))
def test_an_integer_option_out_of_range_names_option_and_value(command, value, tmp_path, capsys):
    def w(name, data):
        (tmp_path / name).write_bytes(data)
        return str(tmp_path / name)

    argv = [*CHUNKED[command](w), "--chunk-size", value, "-o", str(tmp_path / "out")]
    rc, _, err = run_cli(argv, capsys)
    assert_one_line_error(rc, err, argv[0], "--chunk-size", value)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("value", [str(2**70), str(-(2**70))])
@pytest.mark.parametrize("option", ["--top-k", "--repeats", "--seed", "--entailment-index"])
def test_exam_integers_have_a_range(option, value, tmp_path, capsys):
    argv = ["exam", "-q", str(DEMO / "exam/questions.jsonl"), "--articles", str(DEMO / "exam/systems/good-system.jsonl"),
            option, value, "-o", str(tmp_path / "out")]
    rc, _, err = run_cli(argv, capsys)
    assert_one_line_error(rc, err, "exam", option, value)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("option,value", [("--seed", "-1"), ("--seed", str(2**32)), ("--split-seed", str(2**70)),
                                          ("--epochs", "0"), ("--batch-size", "-5")])
def test_training_integers_are_range_checked(option, value, tmp_path, capsys):
    argv = ["ava", "train", "--model", "a0", "--data", str(tmp_path / "d.jsonl"), "--out", str(tmp_path / "m"),
            option, value]
    rc, _, err = run_cli(argv, capsys)
    assert_one_line_error(rc, err, "ava", option, value)


BAD_MODELS = {
    "missing keys": (b'{"weights": [1, 2, 3, 4]}', "missing 'bias'"),
    "a list": (b"[1, 2, 3]", "expected a JSON object, got list"),
    "three weights": (b'{"weights": [1, 2, 3], "bias": 0, "platt_a": -1, "platt_b": 0}', "'weights' must be a list of 4"),
    "a string bias": (b'{"weights": [1, 2, 3, 4], "bias": "0", "platt_a": -1, "platt_b": 0}', "'bias' must be a number"),
    "an unknown key": (b'{"weights": [1, 2, 3, 4], "bias": 0, "platt_a": -1, "platt_b": 0, "wieghts": 1}',
                       "unknown 'wieghts'"),
    "invalid JSON": (b'{"weights": [1, 2', "invalid JSON"),
    "empty": (b"", "invalid JSON"),
}


@pytest.mark.parametrize("case", list(BAD_MODELS))
@pytest.mark.parametrize("subcommand", ["score", "eval"])
def test_a_bad_model_file_is_named_with_what_is_wrong(subcommand, case, tmp_path, capsys):
    data, fragment = BAD_MODELS[case]
    model = tmp_path / "my-model.json"
    model.write_bytes(data)
    argv = ["ava", subcommand, "--model", str(model), str(DEMO / "ava_demo.jsonl"), "-o", str(tmp_path / "out")]
    rc, _, err = run_cli(argv, capsys)
    assert_one_line_error(rc, err, "ava", str(model), fragment)
    assert not (tmp_path / "out").exists()


STDIN_CASES = {
    "rouge: too many predictions": (["rouge", "-p", "-", "-r", "{r}"], b"a\nb\nc\n", "<stdin> has 3 examples but"),
    "rouge: empty": (["rouge", "-p", "-", "-r", "{r}"], b"", "<stdin> has 0 examples but"),
    "rouge: not UTF-8": (["rouge", "-p", "-", "-r", "{r}"], b"caf\xe9\n", "<stdin>:1: invalid UTF-8"),
    "rouge: bad JSON line": (["rouge", "-p", "-", "-r", "{r}", "--format", "jsonl"], b"{\n", "<stdin>:1: invalid JSON"),
    "mrc: bad JSON": (["mrc", "-p", "-", "-r", str(DEMO / "mrc/ref.jsonl")], b"{oops\n", "<stdin>:1: invalid JSON"),
    "ava score: bad JSON": (["ava", "score", "--model", "linear", "--label-field", "judged", "-"], b"[\n", "<stdin>: invalid JSON"),
    "nuggets rag: empty": (["nuggets", "rag", "-p", "-"], b"", "<stdin>: no topic"),
    "nuggets score: empty run": (["nuggets", "score", "-r", str(DEMO / "nuggets/answer_key.txt"), "-p", "-"], b"",
                                 "<stdin>: the run file holds no response"),
    "exam: a CAR run without paragraphs": (["exam", "-q", str(DEMO / "exam/questions.jsonl"), "--articles", "-"],
                                           b"", "<stdin>: a CAR-style run needs a paragraph collection"),
}


@pytest.mark.parametrize("case", list(STDIN_CASES))
def test_standard_input_is_called_stdin(case, tmp_path):
    argv, data, fragment = STDIN_CASES[case]
    ref = tmp_path / "r.txt"
    ref.write_bytes(b"a\nb\n")
    argv = [arg.replace("{r}", str(ref)) for arg in argv]
    out = tmp_path / "out"
    out.mkdir()
    done = subprocess.run([*QASCORE, *argv, "-o", str(out / "x")], input=data, capture_output=True, timeout=120)
    assert_one_line_error(done.returncode, done.stderr.decode(), argv[0], fragment)
    assert " - " not in done.stderr.decode() and "'-'" not in done.stderr.decode()
    assert list(out.iterdir()) == []


CP1252 = "Caf\u00e9 na\u00efve \u201cquoted\u201d \u2013 r\u00e9sum\u00e9\n".encode("cp1252")
ENCODING_CASES = {
    "rouge predictions": lambda w: ["rouge", "-p", w("p.txt", CP1252), "-r", w("r.txt", b"a\n")],
    "rouge references (TSV)": lambda w: ["rouge", "-p", w("p.tsv", b"a\n"), "-r", w("r.tsv", CP1252), "--pred-field", "0",
                                         "--ref-field", "0", "--no-tsv-header"],
    "mrc predictions": lambda w: ["mrc", "-p", w("p.jsonl", b'{"question_id": 1, "answers": ["' + CP1252[:-1] + b'"]}\n'),
                                  "-r", str(DEMO / "mrc/ref.jsonl")],
    "nuggets run": lambda w: ["nuggets", "score", "-r", str(DEMO / "nuggets/answer_key.txt"),
                              "-p", w("run.txt", b"1.1 R D " + CP1252)],
    "exam questions": lambda w: ["exam", "-q", w("q.jsonl", b'{"query_id": "' + CP1252[:-1] + b'"}\n'),
                                 "--articles", str(DEMO / "exam/systems/good-system.jsonl")],
    "ava triples": lambda w: ["ava", "score", "--model", "linear", "--label-field", "judged", w("t.jsonl", b'{"question": "' + CP1252[:-1] + b'"}\n')],
}


@pytest.mark.parametrize("case", list(ENCODING_CASES))
def test_text_that_is_not_utf8_says_how_to_convert_it(case, tmp_path, capsys):
    def w(name, data):
        (tmp_path / name).write_bytes(data)
        return str(tmp_path / name)

    argv = ENCODING_CASES[case](w)
    out = tmp_path / "out"
    out.mkdir()
    rc, _, err = run_cli([*argv, "-o", str(out / "x")], capsys)
    assert_one_line_error(rc, err, argv[0], "invalid UTF-8", "iconv -f cp1252 -t utf-8")
    assert list(out.iterdir()) == []


@pytest.mark.parametrize("ending", ["success", "KeyboardInterrupt", "an error"])
def test_training_leaves_its_folder_only_when_it_succeeds(ending, tmp_path, capsys, monkeypatch):
    pytest.importorskip("sklearn")
    import qascore.judges.linear

    if ending != "success":
        def fail(*args, **kwargs):
            raise KeyboardInterrupt if ending == "KeyboardInterrupt" else ValueError("training failed")
        monkeypatch.setattr(qascore.judges.linear, "train_linear", fail)
    out = tmp_path / "models" / "new" / "linear"
    rc, _, err = run_cli(["ava", "train", "--model", "linear", "--data", str(fake_evouna(tmp_path / "NQ.json")),
                          "--out", str(out)], capsys)
    if ending == "success":
        assert rc == 0, err
        assert sorted(p.name for p in out.iterdir()) == ["linear.json"]
        return
    assert rc == (130 if ending == "KeyboardInterrupt" else 2), err
    assert len(err.splitlines()) == 1, err
    assert not (tmp_path / "models").exists(), "the run left the folders it created"


def test_calibrate_still_updates_its_model_file_in_place(tmp_path, capsys):
    """``ava calibrate MODEL`` writes the tuned thresholds back into the file it read whole: the
    one input an output may be; the file keeps its mode and no temporary file is left."""
    pytest.importorskip("sklearn")
    data = fake_evouna(tmp_path / "NQ.json")
    model = tmp_path / "model" / "linear.json"
    model.parent.mkdir()
    shutil.copyfile(DEMO.parent / "models" / "ava" / "linear.json", model)
    model.chmod(0o640)
    rc, _, err = run_cli(["ava", "calibrate", str(model), "--data", str(data)], capsys)
    assert rc == 0, err
    assert json.loads(model.read_text())["recipe"]["thresholds"]["data"] == "NQ.json"
    assert stat.S_IMODE(model.stat().st_mode) == 0o640
    assert sorted(p.name for p in model.parent.iterdir()) == ["linear.json"]
