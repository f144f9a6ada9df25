"""The ``qascore`` command: a dispatcher over one subcommand module per method.

Every subcommand takes its shared options from :mod:`qascore.cli.options`, so a flag means the
same thing everywhere. Any error a user can cause ends in one line on stderr and exit status 2
(argparse's too, without its usage block); an output that is one of the inputs is refused before
any work; SIGINT, SIGTERM and SIGHUP end a run with one line and status 128 + the signal's number,
after the run has removed the temporary file it was writing.
"""
from __future__ import annotations

import argparse
import importlib
import shlex
import signal
import sys
import threading
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import NoReturn

from .. import __version__

__all__ = ["main"]

# Subcommand -> (its module, the line ``qascore --help`` shows). ``qascore --help`` lists them all
# without importing any; the module of the subcommand named on the command line is imported to
# build its options. Each defines ``register(parser)``: it fills in its subcommand's parser and
# sets a ``func`` default that runs it.
COMMANDS = {
    "demo": ("qascore.cli.demo", "run every method on the bundled demo data"),
    "rouge": ("qascore.cli.rouge", "ROUGE-N/L/Lsum of predictions against references (rouge-score exact)"),
    "bleu": ("qascore.cli.bleu", "BLEU/chrF/TER with sacrebleu's command line: REF -i SYS ..., same output"),
    "mrc": ("qascore.cli.mrc", "DuReader adapted ROUGE-L/BLEU-4 or MS MARCO ROUGE-L/BLEU"),
    "nuggets": ("qascore.cli.nuggets", "nugget evaluation: official F, Nuggeteer, Pourpre, TREC RAG scores"),
    "exam": ("qascore.cli.exam", "EXAM: answerability of exam questions from system articles"),
    "ava": ("qascore.cli.ava", "AVA answer correctness: score, evaluate, train"),
    "compare": ("qascore.cli.compare", "systems x metrics table with paired significance against a baseline"),
}
USAGE_ERROR = 2
# Options that name a file the command writes; every other option value that names an existing
# regular file is an input, which no output may replace (checked before any work).
OUTPUT_OPTIONS = ("output", "records", "diagnostics", "assignments_out", "plot", "graded", "out")
# Inputs that a command updates in place, on purpose, after reading them whole: ``ava calibrate``
# writes the tuned thresholds back into the model file it was given.
UPDATED_IN_PLACE = ("model_dir",)
# Signals that end a run: each unwinds the run (a temporary output file is removed) and exits
# 128 + the signal's number with one line on stderr. SIGINT arrives as KeyboardInterrupt.
STOP_SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP")


class Stopped(BaseException):
    """A signal that ends the run (SIGTERM, SIGHUP), raised in the main thread so that every
    ``with`` block unwinds before the process exits."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line, ``qascore <command>: error: ...``, exit 2
    (argparse prints its usage block first; ``--help`` shows it)."""

    def error(self, message: str) -> NoReturn:
        from ..errors import one_line

        prog = getattr(self, "error_prog", None) or self.prog
        self.exit(USAGE_ERROR, f"{prog}: error: {one_line(message)}\n")


def build_parser(commands: Collection[str] | None = None) -> argparse.ArgumentParser:
    """The ``qascore`` parser. Every subcommand is listed; those in ``commands`` (default: all)
    also get their options, which imports their modules."""
    parser = OneLineParser(prog="qascore", description="Fast, exact QA and RAG evaluation.")
    parser.add_argument("--version", action="version", version=f"qascore {__version__}")
    subparsers = parser.add_subparsers(dest="command", required=True)
    for name, (module_name, help) in COMMANDS.items():
        command_parser = subparsers.add_parser(name, help=help)
        if commands is None or name in commands:
            importlib.import_module(module_name).register(command_parser)
    return parser


def named_command(argv: Sequence[str]) -> str | None:
    """The subcommand on a command line: its first argument that is not an option (no top-level
    option takes a value)."""
    return next((arg for arg in argv if not arg.startswith("-")), None)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``qascore`` command line ``argv`` (the console script ``qascore`` calls it with
    none) and return its exit status: 0, 2 after an error the user can cause (one line on
    stderr), 128 + a signal's number when SIGINT, SIGTERM or SIGHUP ends the run. The
    subcommands and their options are in the command-line guide (``docs/cli.md``).

    Example:

        >>> import os, tempfile
        >>> from qascore.cli import main
        >>> folder = tempfile.TemporaryDirectory()
        >>> predictions, references = (os.path.join(folder.name, name) for name in ("p.txt", "r.txt"))
        >>> with open(predictions, "w") as out:
        ...     _ = out.write("the cat sat on the mat\\na dog barked\\n")
        >>> with open(references, "w") as out:
        ...     _ = out.write("the cat sat on a mat\\nthe dog barked\\n")
        >>> main(["rouge", "-p", predictions, "-r", references, "--types", "rouge1,rougeL"])
        type        precision     recall          F   (mean over 2)
        rouge1        0.75000    0.75000    0.75000
        rougeL        0.75000    0.75000    0.75000
        signature: qascore:rouge|types:rouge1,rougeL|tok:rouge|stem:no|multiref:best_f|version:...
        0
        >>> main(["rouge", "-p", predictions, "-r", os.path.join(folder.name, "missing.txt")])  # one line on stderr
        2
        >>> folder.cleanup()

    :param argv: the arguments after ``qascore`` (None: ``sys.argv[1:]``).
    :returns: the exit status.
    :raises SystemExit: for ``--help``, ``--version`` and a usage error found while parsing
        (status 0 or 2, with one line on stderr for the error), as argparse does.
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    command = named_command(argv)
    prog = "qascore" if command is None or command not in COMMANDS else f"qascore {command}"
    signals = StopSignals()
    try:
        return _run(argv, command, signals)
    except (KeyboardInterrupt, Stopped):
        return _stopped(prog, signals.received or signal.SIGINT)
    finally:
        signals.restore()


def _stopped(prog: str, signum: int) -> int:
    why = "interrupted" if signum == signal.SIGINT else f"stopped by {signal.Signals(signum).name}"
    _say(f"{prog}: {why}")
    return 128 + signum


def _run(argv: list[str], command: str | None, signals: StopSignals) -> int:
    parser = build_parser(() if command is None else (command,))
    if command in COMMANDS:  # what the top-level parser finds wrong (an unknown option) is the command's
        parser.error_prog = f"qascore {command}"  # type: ignore[attr-defined]
    args = parser.parse_args(argv)
    # Imported once the command line is parsed: qascore.io loads the compiled kernels (and
    # numpy), which ``qascore --help`` and usage errors need not wait for.
    from ..errors import QascoreError, one_line
    from ..io import check_not_input, protect_inputs

    signals.start()
    try:
        with protect_inputs(input_paths(args)):
            for name in OUTPUT_OPTIONS:
                check_not_input(getattr(args, name, None))
            return int(args.func(args) or 0)
    except BrokenPipeError:  # a pipe reader (head, less) went away: not an error of ours
        sys.stderr.close()
        return 0
    except MemoryError as exc:
        _say(f"qascore {args.command}: error: {one_line(out_of_memory_message(exc, args))}")
        return USAGE_ERROR
    except (QascoreError, ValueError, TypeError, OSError, ImportError) as exc:
        if signals.received:  # a module that wraps an interrupted import in an ImportError of its own
            return _stopped(f"qascore {args.command}", signals.received)
        _say(f"qascore {args.command}: error: {error_message(exc)}")
        return USAGE_ERROR


def input_paths(args: argparse.Namespace) -> list[str]:
    """Every option value that is not an output: the files among them are the run's inputs."""
    paths = []
    for name, value in vars(args).items():
        if name in OUTPUT_OPTIONS or name in UPDATED_IN_PLACE or name in ("command", "func"):
            continue
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str) and item:
                paths.append(item)
    return paths


def error_message(exc: BaseException) -> str:
    """The one line that reports ``exc``: control characters escaped, and for text that is not
    UTF-8, how to convert it."""
    from ..errors import one_line

    text = str(exc) or type(exc).__name__
    if isinstance(exc, UnicodeDecodeError) or "invalid UTF-8" in text or "not valid UTF-8" in text:
        text += encoding_hint(getattr(exc, "path", None))
    return one_line(text)


def encoding_hint(path: str | None) -> str:
    """How to make a file UTF-8 (qascore reads nothing else): the iconv command for the usual
    culprit, Windows-1252, with the file's own name when it is known."""
    if path is None or path in ("-", "<stdin>"):
        source, target = "FILE", "FILE.utf8"
    else:
        name = Path(path)
        source, target = shlex.quote(path), shlex.quote(str(name.with_name(f"{name.stem}.utf8{name.suffix}")))
    return (f"; the input must be UTF-8: if it is Windows-1252 (or another encoding: iconv -l), convert it "
            f"first: iconv -f cp1252 -t utf-8 {source} > {target}")


def _say(line: str) -> None:
    """One line on stderr, if stderr is still there (a hangup may have closed the terminal)."""
    try:
        print(line, file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass


class StopSignals:
    """Handlers of the signals that end a run (:data:`STOP_SIGNALS`): the first one raises
    KeyboardInterrupt (SIGINT) or :class:`Stopped` in the main thread, so the run unwinds (a
    temporary output file is removed); one that comes while it unwinds is ignored, so the clean-up
    finishes. Until :meth:`start` (imports and parsing: numpy turns an interrupted import into an
    ImportError of many lines) a signal is only noted, and raised by :meth:`start`. A signal
    ignored when the command starts stays ignored (nohup ignores SIGHUP; a shell, SIGINT for a
    background job). :meth:`restore` puts the previous handlers back (``main`` may run in-process)."""

    def __init__(self) -> None:
        self.received: int | None = None
        self._started = False
        self._previous: dict = {}
        if threading.current_thread() is not threading.main_thread():
            return
        for name in STOP_SIGNALS:
            number = getattr(signal, name, None)
            if number is not None and signal.getsignal(number) is not signal.SIG_IGN:
                self._previous[number] = signal.signal(number, self._handle)

    def _handle(self, signum: int, frame) -> None:
        if self.received is not None:
            return
        self.received = signum
        if self._started:
            self._raise()

    def _raise(self) -> NoReturn:
        assert self.received is not None
        raise KeyboardInterrupt if self.received == signal.SIGINT else Stopped(self.received)

    def start(self) -> None:
        """The command's work begins: a signal noted during start-up is raised now, later ones at once."""
        self._started = True
        if self.received is not None:
            self._raise()

    def restore(self) -> None:
        for number, handler in self._previous.items():
            signal.signal(number, handler)


def out_of_memory_message(exc: MemoryError, args: argparse.Namespace) -> str:
    """One line for a MemoryError: where it came from (a kernel names itself), the input files
    being scored, and what to try."""
    inputs = []
    for name in ("predictions", "references", "questions"):
        value = getattr(args, name, None)
        inputs.extend(value if isinstance(value, list) else [value] if value else [])
    from ..errors import display_name

    on = f" scoring {', '.join(map(display_name, inputs))}" if inputs else ""
    detail = str(exc)  # numpy says how much it failed to get; the kernels say "out of memory in ..."
    what = detail if detail.startswith("out of memory") else f"out of memory ({detail})" if detail else "out of memory"
    fewer_threads = "--n-jobs 1 (each thread holds its own buffers) or " if hasattr(args, "n_jobs") else ""
    return f"{what}{on}; try {fewer_threads}smaller input files"


if __name__ == "__main__":
    sys.exit(main())
