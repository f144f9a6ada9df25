"""Write qascore's copy of sacrebleu's test-set index from the installed sacrebleu.

``qascore.compat.sacrebleu.dataset`` lists sacrebleu 2.6.0's test sets without sacrebleu: their
names, descriptions, citations, the addresses and checksums sacrebleu downloads them from, and the
language pairs of each with the files sacrebleu reads for them, in sacrebleu's order. This script
reads them from ``sacrebleu.dataset.DATASETS`` (a build-time tool: sacrebleu is in the test extra,
never imported by qascore) and writes ``src/qascore/compat/sacrebleu/dataset/datasets.json``.

Usage: ``python tools/build_sacrebleu_datasets.py [--out FILE]``; ``--check`` exits 1 when the
shipped file differs from what the installed sacrebleu gives.
"""
from __future__ import annotations

import argparse
import json
import sys
from importlib import metadata
from pathlib import Path

VERSION = "2.6.0"
SHIPPED = Path(__file__).resolve().parents[1] / "src/qascore/compat/sacrebleu/dataset/datasets.json"
FIELDS = ("description", "citation", "data", "md5", "langpairs")


def datasets_index() -> dict:
    """{test set: {description, citation, data, md5, langpairs, and sacrebleu's extra settings}}."""
    installed = metadata.version("sacrebleu")
    if installed != VERSION:
        raise SystemExit(f"sacrebleu {installed} is installed; the index is sacrebleu {VERSION}'s")
    from sacrebleu.dataset import DATASETS

    return {name: {**{field: getattr(ds, field) for field in FIELDS}, **ds.kwargs} for name, ds in DATASETS.items()}


def render(index: dict) -> str:
    return json.dumps({"sacrebleu": VERSION, "datasets": index}, ensure_ascii=False, indent=1) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=SHIPPED)
    parser.add_argument("--check", action="store_true", help="compare with the shipped file instead of writing")
    args = parser.parse_args(argv)
    text = render(datasets_index())
    if args.check:
        same = SHIPPED.read_text(encoding="utf-8") == text
        print(f"{SHIPPED}: {'up to date' if same else 'differs from the installed sacrebleu'}")
        return 0 if same else 1
    args.out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
