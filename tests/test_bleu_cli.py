"""``qascore bleu`` (and ``python -m qascore.compat.sacrebleu``) against sacrebleu 2.6's own
command, run as a subprocess on the WMT17 en-de systems of sacrebleu's tests: the same stdout,
byte for byte, and the same exit status, over a matrix of arguments (metrics and their options,
several systems, paired tests, confidence intervals, every output format, stdin, sentence level,
colours on a terminal).

The data is sacrebleu's ``test/wmt17_en_de_systems.pkl.bz2`` (from its source distribution,
cached in ``~/.cache/qascore/`` by ``peer_suites/sacrebleu/fetch.py``); the tests are skipped
when it cannot be had. Subsets (the first 300 segments, three systems) keep the run short; the
matrix runs qascore in-process and sacrebleu as its command, and the entry points run as commands.
"""
from __future__ import annotations

import bz2
import gzip
import importlib.util
import io
import json
import os
import pickle
import pty
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from qascore.cli import main

sacrebleu = pytest.importorskip("sacrebleu")

ROOT = Path(__file__).resolve().parents[1]
SEGMENTS = 100
SYSTEMS = {"kit.txt": "newstest2017.KIT.4950.en-de", "fbk.txt": "newstest2017.FBK.4870.en-de",
           "online-a.txt": "newstest2017.online-A.0.en-de"}
PAIRED = ["ref.txt", "-i", "kit.txt", "fbk.txt", "online-a.txt"]


def _wmt17_systems() -> dict:
    spec = importlib.util.spec_from_file_location("fetch_sacrebleu", ROOT / "peer_suites" / "sacrebleu" / "fetch.py")
    fetch = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fetch)
    path = fetch.cached_test_file("wmt17_en_de_systems.pkl.bz2")
    if path is None:
        pytest.skip("sacrebleu's WMT17 systems are not available (no cache and no pip download of its sdist)")
    with bz2.open(path, "rb") as f:
        return dict(pickle.load(f))


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    """The files the commands read: the reference, three systems, and what is made of them."""
    systems = _wmt17_systems()
    folder = tmp_path_factory.mktemp("wmt17")

    def write(name: str, lines) -> None:
        (folder / name).write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")

    (reference,) = systems["reference"]
    write("ref.txt", reference[:SEGMENTS])
    for name, system in SYSTEMS.items():
        write(name, systems[system][:SEGMENTS])
    kit, fbk = systems[SYSTEMS["kit.txt"]][:SEGMENTS], systems[SYSTEMS["fbk.txt"]][:SEGMENTS]
    write("two-systems.tsv", (f"{a}\t{b}" for a, b in zip(kit, fbk)))
    write("two-refs.tsv", (f"{r}\t{b}" for r, b in zip(reference, fbk)))
    write("short.txt", kit[:50])
    write("1.10", kit)  # names that tabulate reads as numbers
    write("1,000.5", fbk)
    (folder / "ref.txt.gz").write_bytes(gzip.compress((folder / "ref.txt").read_bytes()))
    return folder


# The environment of every command: this process's, without sacrebleu's variables (a test sets them
# where it means to, and the runs started in the background must not see another test's).
ENV = {name: value for name, value in os.environ.items() if not name.startswith("SACREBLEU") and name != "NO_COLOR"}


def sacrebleu_command(folder: Path, args, stdin: str | None = None, env: dict | None = None):
    """(stdout, exit status, stderr) of sacrebleu's own command; ``stdin``: a file of ``folder`` to pipe in."""
    data = (folder / stdin).read_bytes() if stdin else b""
    done = subprocess.run([sys.executable, "-m", "sacrebleu", "-q", *args], cwd=folder, input=data,
                          capture_output=True, env={**ENV, **(env or {})}, timeout=120)
    return done.stdout, done.returncode, done.stderr.decode(errors="replace")


class SacrebleuRuns:
    """sacrebleu's command on the argument lists of this module, all started on first use, as many
    at once as there are cores: most of each run is sacrebleu's start-up (about 0.3 s of CPU)."""

    def __init__(self, folder: Path, runs: list[tuple]):
        self.folder = folder
        self.pool = ThreadPoolExecutor(os.cpu_count() or 1)
        self.futures: dict = {}
        for args, stdin, env in runs:
            self._start(args, stdin, env)

    def _start(self, args, stdin, env):
        key = (tuple(args), stdin, tuple(sorted((env or {}).items())))
        if key not in self.futures:
            self.futures[key] = self.pool.submit(sacrebleu_command, self.folder, args, stdin, env)
        return self.futures[key]

    def __call__(self, args, stdin: str | None = None, env: dict | None = None):
        """(stdout, exit status); sacrebleu's stderr is printed, which pytest shows when a test fails."""
        out, status, err = self._start(args, stdin, env).result()
        print(f"sacrebleu {' '.join(args)}: exit {status}\n{err[-3000:]}", file=sys.stderr)
        return out, status


def qascore_in_process(folder: Path, args, capsysbinary, monkeypatch, stdin: str | None = None,
                       env: dict | None = None):
    """(stdout, exit status, stderr) of ``qascore bleu``, run in this process."""
    monkeypatch.chdir(folder)
    for name in set(os.environ) - set(ENV):
        monkeypatch.delenv(name)
    for name, value in (env or {}).items():
        monkeypatch.setenv(name, value)
    data = (folder / stdin).read_bytes() if stdin else b""
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    capsysbinary.readouterr()
    status = main(["bleu", "-q", *args])
    captured = capsysbinary.readouterr()
    return captured.out, status, captured.err.decode()


MATRIX = {
    "default": ["ref.txt", "-i", "kit.txt"],
    "three-metrics-text": ["ref.txt", "-i", "kit.txt", "-m", "bleu", "chrf", "ter", "-f", "text"],
    "three-metrics-json": ["ref.txt", "-i", "kit.txt", "-m", "bleu", "chrf", "ter"],
    "score-only-text": ["ref.txt", "-i", "kit.txt", "-m", "bleu", "chrf", "-b", "-f", "text"],
    "score-only-json": ["ref.txt", "-i", "kit.txt", "-m", "chrf", "bleu", "-b"],
    "width-short": ["ref.txt", "-i", "kit.txt", "-m", "bleu", "chrf", "-w", "3", "--short", "-f", "text"],
    "confidence-text": ["ref.txt", "-i", "kit.txt", "-m", "bleu", "chrf", "ter", "--confidence", "-cin", "40",
                        "-f", "text"],
    "lowercase-intl": ["ref.txt", "-i", "kit.txt", "-lc", "-tok", "intl", "-f", "text"],
    "char-floor": ["ref.txt", "-i", "kit.txt", "-tok", "char", "-s", "floor", "-sv", "0.2", "-f", "text"],
    "none-add-k": ["ref.txt", "-i", "kit.txt", "-tok", "none", "-s", "add-k", "--force"],
    "target-language-zh": ["ref.txt", "-i", "kit.txt", "-l", "en-zh", "-s", "none", "-f", "text"],
    "chrf-options": ["ref.txt", "-i", "kit.txt", "-m", "chrf", "--chrf-word-order", "2", "--chrf-whitespace",
                     "--chrf-beta", "3", "--chrf-lowercase", "-cc", "4", "--chrf-eps-smoothing", "-f", "text"],
    "ter-options": ["ref.txt", "-i", "kit.txt", "-m", "ter", "--ter-case-sensitive", "--ter-no-punct",
                    "--ter-normalized", "--ter-asian-support", "-f", "text"],
    "two-reference-files-gzip": ["ref.txt.gz", "fbk.txt", "-i", "kit.txt", "-m", "bleu", "chrf", "-f", "text"],
    "tab-separated-references": ["two-refs.tsv", "-nr", "2", "-i", "kit.txt", "-m", "bleu", "chrf"],
    "detail": ["ref.txt", "-i", "kit.txt", "-d"],
    "systems-text": ["ref.txt", "-i", "kit.txt", "fbk.txt", "-m", "bleu", "chrf", "ter", "-f", "text"],
    "systems-latex": [*PAIRED, "-m", "bleu", "chrf", "-f", "latex", "-w", "2"],
    "systems-json": [*PAIRED, "-m", "chrf", "bleu"],
    "paired-bs-text": ["ref.txt", "-i", "kit.txt", "fbk.txt", "-m", "ter", "bleu", "--paired-bs", "--paired-bs-n", "40",
                       "-f", "text"],
    "paired-bs-latex": [*PAIRED, "-m", "bleu", "chrf", "--paired-bs", "-pbsn", "40", "-f", "latex", "--short"],
    "paired-ar-text-baseline-repeated": ["ref.txt", "-i", "kit.txt", "kit.txt", "fbk.txt", "online-a.txt", "-m", "bleu",
                                         "chrf", "--paired-ar", "--paired-ar-n", "40", "-f", "text"],
    "paired-ar-json": [*PAIRED, "-m", "chrf", "bleu", "--paired-ar", "-parn", "40", "-j", "2"],
    "names-read-as-numbers": ["ref.txt", "-i", "1.10", "1,000.5", "-f", "text", "-w", "2"],
    "sentence-bleu": ["ref.txt", "-i", "kit.txt", "--sentence-level"],
    "sentence-chrf-score-only": ["ref.txt", "-i", "kit.txt", "-sl", "-m", "chrf", "-b"],
    "sentence-ter-width": ["ref.txt", "-i", "kit.txt", "-sl", "-m", "ter", "-w", "3", "--short"],
}


STDIN = {
    "one-system": (["ref.txt"], "kit.txt"),
    "two-systems-paired": (["ref.txt", "-m", "bleu", "--paired-ar", "-parn", "30", "-f", "text"], "two-systems.tsv"),
}
ENVIRONMENT = {
    # SACREBLEU_FORMAT overrides -f; SACREBLEU_SEED seeds the bootstrap
    "format-seed": (["ref.txt", "-i", "kit.txt", "-m", "bleu", "chrf", "--confidence", "-cin", "30", "-f", "text"],
                    {"SACREBLEU_FORMAT": "json", "SACREBLEU_SEED": "7"}),
    # without colours, tabulate reads "1,000.5" as a number
    "no-color": (["ref.txt", "-i", "1.10", "1,000.5", "-f", "latex", "-w", "2"], {"NO_COLOR": "1"}),
}
ERRORS = {
    "lengths": (["ref.txt", "-i", "short.txt"], 1),
    "tab-fields": (["two-refs.tsv", "-nr", "3", "-i", "kit.txt"], 17),
    "one-system-paired": (["ref.txt", "-i", "kit.txt", "--paired-bs"], 1),
    "confidence-of-several": (["ref.txt", "-i", "kit.txt", "fbk.txt", "--confidence"], 1),
    "sentence-level-metrics": (["ref.txt", "-i", "kit.txt", "-sl", "-m", "bleu", "chrf"], 1),
    "same-name-twice": (["ref.txt", "-i", "kit.txt", "kit.txt"], 1),
}
PAIRED_BS_JSON = [*PAIRED, "-m", "bleu", "chrf", "--paired-bs", "-pbsn", "30"]
ENTRY_POINT = (["ref.txt", "-m", "bleu", "chrf", "--paired-bs", "-pbsn", "30", "-f", "text"], "two-systems.tsv")


@pytest.fixture(scope="module")
def sacrebleu_runs(data):
    runs = [(args, None, None) for args in MATRIX.values()]
    runs += [(args, stdin, None) for args, stdin in STDIN.values()]
    runs += [(args, None, env) for args, env in ENVIRONMENT.values()]
    runs += [(PAIRED_BS_JSON, None, None), (*ENTRY_POINT, None)]
    runs += [(args, None, None) for args, _ in ERRORS.values()]
    runs = SacrebleuRuns(data, runs)
    yield runs
    runs.pool.shutdown()


@pytest.mark.parametrize("args", MATRIX.values(), ids=MATRIX.keys())
def test_output_equals_sacrebleus_command(data, sacrebleu_runs, args, capsysbinary, monkeypatch):
    theirs = sacrebleu_runs(args)
    ours = qascore_in_process(data, args, capsysbinary, monkeypatch)
    assert theirs[1] == 0 and theirs[0]
    assert ours[:2] == theirs
    if not {"-f", "-sl", "--sentence-level", "-b", "-d"} & set(args):
        json.loads(ours[0])  # the default format is JSON


@pytest.mark.parametrize("args, stdin", STDIN.values(), ids=STDIN.keys())
def test_systems_on_stdin(data, sacrebleu_runs, args, stdin, capsysbinary, monkeypatch):
    ours = qascore_in_process(data, args, capsysbinary, monkeypatch, stdin=stdin)
    assert ours[:2] == sacrebleu_runs(args, stdin)


@pytest.mark.parametrize("args, env", ENVIRONMENT.values(), ids=ENVIRONMENT.keys())
def test_environment_variables(data, sacrebleu_runs, args, env, capsysbinary, monkeypatch):
    ours = qascore_in_process(data, args, capsysbinary, monkeypatch, env=env)
    assert ours[:2] == sacrebleu_runs(args, env=env)


def test_paired_bootstrap_json_holds_sacrebleus_numbers(data, sacrebleu_runs, capsysbinary, monkeypatch):
    """sacrebleu's command fails on this one (its bootstrap means are float32, which json refuses);
    ours writes JSON whose numbers are those of sacrebleu's own PairedTest."""
    from sacrebleu.metrics import BLEU, CHRF
    from sacrebleu.significance import PairedTest

    assert sacrebleu_runs(PAIRED_BS_JSON)[1] == 1
    out, status, _ = qascore_in_process(data, PAIRED_BS_JSON, capsysbinary, monkeypatch)
    assert status == 0
    rows = json.loads(out)
    refs = [(data / "ref.txt").read_text(encoding="utf-8").splitlines()]
    systems = [(name, (data / name).read_text(encoding="utf-8").splitlines()) for name in PAIRED[2:]]
    systems[0] = (f"Baseline: {systems[0][0]}", systems[0][1])
    _, scores = PairedTest(systems, {"BLEU": BLEU(references=refs), "CHRF": CHRF(references=refs)}, references=None,
                           test_type="bs", n_samples=30)()
    assert [row["system"] for row in rows] == scores["System"]
    for metric in ("BLEU", "chrF2"):
        expected = [{k: None if v is None else float(v) for k, v in vars(result).items()} for result in scores[metric]]
        assert [row[metric] for row in rows] == expected


@pytest.mark.parametrize("args, status", ERRORS.values(), ids=ERRORS.keys())
def test_errors_exit_as_sacrebleus_with_one_line(data, sacrebleu_runs, args, status, capsysbinary, monkeypatch):
    assert sacrebleu_runs(args)[1] == status
    out, ours, err = qascore_in_process(data, args, capsysbinary, monkeypatch)
    assert (out, ours) == (b"", status)
    (line,) = err.splitlines()
    assert line.startswith("qascore bleu: error: ")


@pytest.mark.parametrize("option", [["-t", "wmt17"], ["--echo", "src"], ["--list"], ["--download", "wmt17"],
                                    ["--citation"], ["--origlang", "en"], ["--subset", "x"]])
def test_test_set_options_are_refused_in_one_line(data, option, capsysbinary, monkeypatch):
    out, status, err = qascore_in_process(data, ["ref.txt", "-i", "kit.txt", *option], capsysbinary, monkeypatch)
    (line,) = err.splitlines()
    assert (out, status) == (b"", 2)
    assert line.startswith(f"qascore bleu: error: {option[0]}") and "out of scope" in line


def test_bad_encoding_names_file_and_line(data, capsysbinary, monkeypatch):
    (data / "latin1.txt").write_bytes(b"ok\n" * 2 + "Größe\n".encode("latin-1"))
    args = ["latin1.txt", "-i", "latin1.txt"]
    _, status, err = qascore_in_process(data, args, capsysbinary, monkeypatch)
    assert status == 2 and "latin1.txt:3: not valid utf-8" in err
    ours = qascore_in_process(data, [*args, "-e", "latin-1", "-f", "text"], capsysbinary, monkeypatch)
    assert ours[:2] == sacrebleu_command(data, [*args, "-e", "latin-1", "-f", "text"])[:2]


@pytest.mark.parametrize("entry", [["-m", "qascore", "bleu"], ["-m", "qascore.compat.sacrebleu"]],
                         ids=["qascore-bleu", "python-m-compat"])
def test_entry_points_are_the_same_command(data, sacrebleu_runs, entry):
    """The installed commands, with systems on stdin and a paired test."""
    args, stdin = ENTRY_POINT
    done = subprocess.run([sys.executable, *entry, "-q", *args], cwd=data, input=(data / stdin).read_bytes(),
                          capture_output=True, env=ENV, timeout=120)
    assert (done.stdout, done.returncode) == sacrebleu_runs(args, stdin)


def _on_terminal(folder: Path, command: list[str]) -> bytes:
    """What a command writes to a terminal (a pseudo-terminal as its stdout)."""
    primary, secondary = pty.openpty()
    process = subprocess.Popen(command, cwd=folder, stdout=secondary, stderr=subprocess.DEVNULL,
                               stdin=subprocess.DEVNULL, env=ENV)
    os.close(secondary)
    out = b""
    while True:
        try:
            chunk = os.read(primary, 65536)
        except OSError:  # the command has exited and closed its side
            break
        if not chunk:
            break
        out += chunk
    process.wait(timeout=120)
    os.close(primary)
    return out


@pytest.mark.parametrize("args", [[*PAIRED, "-m", "bleu", "chrf", "--paired-bs", "-pbsn", "30", "-f", "text"],
                                  ["ref.txt", "-i", "kit.txt", "-m", "bleu", "chrf", "-ci", "-cin", "30", "-f", "text"]],
                         ids=["paired-grid", "confidence"])
def test_colours_on_a_terminal(data, args):
    theirs = _on_terminal(data, [sys.executable, "-m", "sacrebleu", "-q", *args])
    assert b"\x1b[" in theirs
    assert _on_terminal(data, [sys.executable, "-m", "qascore", "bleu", "-q", *args]) == theirs
