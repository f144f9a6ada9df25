"""What more than one adversarial suite uses: generated inputs, and the commands as the parser has them."""
from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

WORDS = "the cat sat on a mat dog ran far away quick brown fox jumps over lazy".split()


def fake_evouna(path: Path, questions: int = 60, seed: int = 5) -> Path:
    """A small EVOUNA-shaped file: each system's answer is the gold one (judged right) or random words."""
    from qascore.ava.data import EVOUNA_SYSTEMS

    rng = random.Random(seed)
    records = []
    for i in range(questions):
        gold = " ".join(rng.choices(WORDS, k=2))
        record = {"question": f"question {i} " + " ".join(rng.choices(WORDS, k=5)), "golden_answer": gold}
        for system in EVOUNA_SYSTEMS:
            right = rng.random() < 0.5
            record[f"answer_{system}"] = f"{gold} indeed" if right else " ".join(rng.choices(WORDS, k=3))
            record[f"judge_{system}"] = right
        records.append(record)
    path.write_text(json.dumps(records))
    return path


def leaf_parsers(parser, prefix: tuple[str, ...] = ()):
    """(``"nuggets score"``, its parser) for every command that runs, from ``qascore.cli.build_parser()``."""
    subparsers = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subparsers:
        yield " ".join(prefix), parser
        return
    for name, sub in subparsers[0].choices.items():
        yield from leaf_parsers(sub, (*prefix, name))


def option_dests(parser) -> set[str]:
    return {action.dest for action in parser._actions}
