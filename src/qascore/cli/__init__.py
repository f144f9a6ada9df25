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
    except (QascoreError, ValueError, TypeError, OSError, MemoryError, ImportError) as exc:
        what = "out of memory" if isinstance(exc, MemoryError) else str(exc) or type(exc).__name__
        print(f"qascore {args.command}: error: {what}", file=sys.stderr)
        return USAGE_ERROR


if __name__ == "__main__":
    sys.exit(main())
