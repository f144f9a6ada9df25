"""The ``qascore`` command: one subcommand per method, each defined next to its method."""
from __future__ import annotations

import argparse
import importlib
import sys

from . import __version__

# Each module defines ``register(subparsers)``; it adds its subcommand(s) with a ``func`` default.
_COMMAND_MODULES = [
    "qascore.demo",
    "qascore.lexical.cli_mrc",
    "qascore.exam.cli",
    "qascore.lexical.cli_rouge",
    "qascore.ava.cli",
    "qascore.nuggets.cli",
]


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
    except (ValueError, TypeError, OSError) as exc:
        print(f"qascore {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
