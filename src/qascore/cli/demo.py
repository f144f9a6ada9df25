"""``qascore demo``: the main job of every method on small demo data bundled in the package."""
from __future__ import annotations

import importlib
from importlib import resources

from ..io import standard_output

# Each module defines ``run_demo(data_dir, out)``: it scores its bundled demo data and prints a report.
_DEMO_PARTS = [
    "qascore.lexical.demo",
    "qascore.nuggets.demo",
    "qascore.exam.demo",
    "qascore.ava.demo",
]


def demo_data_dir():
    return resources.files("qascore") / "demo_data"


def run(args) -> int:
    out = standard_output()
    print("qascore demo: every method on the bundled demo data\n", file=out)
    for module_name in _DEMO_PARTS:
        importlib.import_module(module_name).run_demo(demo_data_dir(), out)
        print(file=out)
    return 0


def register(parser) -> None:
    """Options and run function of ``qascore demo`` (its ``qascore --help`` line: ``cli.COMMANDS``)."""
    parser.set_defaults(func=run)
