"""The ``qascore`` command: a dispatcher over one subcommand module per method.

Every subcommand takes its shared options from :mod:`qascore.cli.options`, so a flag means the
same thing everywhere. Any error a user can cause ends in one line on stderr and exit status 2.
"""
from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Collection, Sequence

from .. import __version__

# Subcommand -> (its module, the line ``qascore --help`` shows). ``qascore --help`` lists them all
# without importing any; the module of the subcommand named on the command line is imported to
# build its options. Each defines ``register(parser)``: it fills in its subcommand's parser and
# sets a ``func`` default that runs it.
COMMANDS = {
    "demo": ("qascore.cli.demo", "run every method on the bundled demo data"),
    "rouge": ("qascore.cli.rouge", "ROUGE-N/L/Lsum of predictions against references (rouge-score exact)"),
    "mrc": ("qascore.cli.mrc", "DuReader adapted ROUGE-L/BLEU-4 or MS MARCO ROUGE-L/BLEU"),
    "nuggets": ("qascore.cli.nuggets", "nugget evaluation: official F, Nuggeteer, Pourpre, TREC RAG scores"),
    "exam": ("qascore.cli.exam", "EXAM: answerability of exam questions from system articles"),
    "ava": ("qascore.cli.ava", "AVA answer correctness: score, evaluate, train"),
}
USAGE_ERROR = 2


def build_parser(commands: Collection[str] | None = None) -> argparse.ArgumentParser:
    """The ``qascore`` parser. Every subcommand is listed; those in ``commands`` (default: all)
    also get their options, which imports their modules."""
    parser = argparse.ArgumentParser(prog="qascore", description="Fast, exact QA and RAG evaluation.")
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
    argv = sys.argv[1:] if argv is None else list(argv)
    command = named_command(argv)
    parser = build_parser(() if command is None else (command,))
    args = parser.parse_args(argv)
    # Imported once the command line is parsed: qascore.errors loads the compiled kernels (and
    # numpy), which ``qascore --help`` and usage errors need not wait for.
    from ..errors import QascoreError

    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print(f"qascore {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # a pipe reader (head, less) went away: not an error of ours
        sys.stderr.close()
        return 0
    except MemoryError as exc:
        print(f"qascore {args.command}: error: {out_of_memory_message(exc, args)}", file=sys.stderr)
        return USAGE_ERROR
    except (QascoreError, ValueError, TypeError, OSError, ImportError) as exc:
        print(f"qascore {args.command}: error: {str(exc) or type(exc).__name__}", file=sys.stderr)
        return USAGE_ERROR


def out_of_memory_message(exc: MemoryError, args: argparse.Namespace) -> str:
    """One line for a MemoryError: where it came from (a kernel names itself), the input files
    being scored, and what to try."""
    inputs = []
    for name in ("predictions", "references", "questions"):
        value = getattr(args, name, None)
        inputs.extend(value if isinstance(value, list) else [value] if value else [])
    on = f" scoring {', '.join(map(str, inputs))}" if inputs else ""
    detail = str(exc)  # numpy says how much it failed to get; the kernels say "out of memory in ..."
    what = detail if detail.startswith("out of memory") else f"out of memory ({detail})" if detail else "out of memory"
    fewer_threads = "--n-jobs 1 (each thread holds its own buffers) or " if hasattr(args, "n_jobs") else ""
    return f"{what}{on}; try {fewer_threads}smaller input files"


if __name__ == "__main__":
    sys.exit(main())
