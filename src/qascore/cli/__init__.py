"""The ``qascore`` command: a dispatcher over one subcommand module per method.

Every subcommand takes its shared options from :mod:`qascore.cli.options`, so a flag means the
same thing everywhere. Any error a user can cause ends in one line on stderr and exit status 2.
"""
from __future__ import annotations

import argparse
import importlib
import sys

from .. import __version__
from ..errors import QascoreError

# Each module defines ``register(subparsers)``; it adds its subcommand(s) with a ``func`` default.
_COMMAND_MODULES = [
    "qascore.cli.demo",
    "qascore.cli.rouge",
    "qascore.cli.mrc",
    "qascore.cli.nuggets",
    "qascore.cli.exam",
    "qascore.cli.ava",
]
USAGE_ERROR = 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="qascore", description="Fast, exact QA and RAG evaluation.")
    parser.add_argument("--version", action="version", version=f"qascore {__version__}")
    subparsers = parser.add_subparsers(dest="command", required=True)
    for module_name in _COMMAND_MODULES:
        importlib.import_module(module_name).register(subparsers)
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
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
