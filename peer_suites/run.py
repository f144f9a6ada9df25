"""Run peers' own test suites against qascore's drop-in compat modules.

    python peer_suites/run.py [sacrebleu] [rouge_score]

For each peer: ``peer_suites/<peer>/fetch.py`` puts the peer's test files into a fresh folder,
``conftest.py`` (aliasing the peer's module names to ``qascore.compat.<peer>``, listing the tests
that cannot apply) goes beside them, and pytest runs there. Exit status: non-zero if any suite fails.
"""
from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
PEERS = ("sacrebleu", "rouge_score")


def _load_fetch(peer: str):
    spec = importlib.util.spec_from_file_location(f"fetch_{peer}", HERE / peer / "fetch.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.fetch


def run_suite(peer: str, pytest_args: list[str]) -> int:
    with tempfile.TemporaryDirectory(prefix=f"peer-{peer}-") as tmp:
        dest = Path(tmp)
        _load_fetch(peer)(dest)
        shutil.copy(HERE / peer / "conftest.py", dest / "conftest.py")
        shutil.copy(HERE / "aliasing.py", dest / "aliasing.py")
        print(f"== {peer}'s own tests against qascore.compat.{peer}", flush=True)
        command = [sys.executable, "-m", "pytest", str(dest), "-q", "-rs", "-p", "no:cacheprovider",
                   "--rootdir", str(dest), *pytest_args]
        return subprocess.run(command, cwd=dest).returncode


def main(argv: list[str]) -> int:
    peers = [a for a in argv if not a.startswith("-")] or list(PEERS)
    unknown = set(peers) - set(PEERS)
    if unknown:
        print(f"unknown peer(s): {', '.join(sorted(unknown))}; known: {', '.join(PEERS)}", file=sys.stderr)
        return 2
    options = [a for a in argv if a.startswith("-")]
    return max(run_suite(peer, options) for peer in peers)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
