"""Fetch rouge-score 0.1.2's own test suite, to run against ``qascore.compat.rouge_score``.

``fetch(dest)`` downloads the sdist from PyPI with pip (once; kept in a cache folder), checks its
SHA-256, and writes into ``dest`` the test modules of the four modules we replace
(``rouge_scorer``, ``scoring``, ``tokenizers``, ``tokenize``) and ``test_util.py``, whose data
paths are pointed at ``shared/data/rouge_score`` beside the checkout. ``io_test.py`` is not
fetched: ``rouge_score.io`` (the CSV scoring script's helpers) is not part of the drop-in.
"""
from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
import tarfile
from pathlib import Path

VERSION = "0.1.2"
SDIST = f"rouge_score-{VERSION}.tar.gz"
SDIST_SHA256 = "c7d4da2683e68c9abf0135ef915d63a46643666f848e558a1b9f7ead17ff0f04"  # PyPI's file
TEST_FILES = ("rouge_scorer_test.py", "scoring_test.py", "tokenizers_test.py", "tokenize_test.py", "test_util.py")
DATA_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "rouge_score"
CACHE_DIR = Path(os.environ.get("QASCORE_PEER_CACHE", Path.home() / ".cache" / "qascore" / "peer_suites"))

# test_util.py joins every data path onto this one assignment
_PREFIX_LINE = re.compile(r"^_TESTDATA_PREFIX = .*$", re.MULTILINE)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def download(cache: Path = CACHE_DIR / "rouge_score") -> Path:
    """The verified sdist in ``cache`` (downloaded by pip when absent)."""
    archive = cache / SDIST
    if not archive.is_file():
        cache.mkdir(parents=True, exist_ok=True)
        # --no-binary for rouge-score alone: pip prepares the sdist's metadata in an isolated build
        # environment whose setuptools and wheel come as wheels (a fresh venv has no wheel package)
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", "rouge-score",
             "--dest", str(cache), f"rouge-score=={VERSION}"],
            check=True,
        )
    digest = _sha256(archive)
    if digest != SDIST_SHA256:
        raise RuntimeError(f"{archive} has SHA-256 {digest}, expected {SDIST_SHA256}; delete it and fetch again")
    return archive


def fetch(dest: Path) -> None:
    """Write rouge-score's test modules and a re-pointed ``test_util.py`` into ``dest``."""
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(download(), "r:gz") as tar:
        for name in TEST_FILES:
            member = tar.extractfile(f"rouge_score-{VERSION}/rouge_score/{name}")
            if member is None:
                raise RuntimeError(f"{SDIST} has no regular file rouge_score/{name}")
            text = member.read().decode("utf-8")
            if name == "test_util.py":
                text, count = _PREFIX_LINE.subn(lambda _: f"_TESTDATA_PREFIX = {str(DATA_DIR)!r}", text)
                if count != 1:
                    raise RuntimeError(f"test_util.py: expected one _TESTDATA_PREFIX line, found {count}")
            (dest / name).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    fetch(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("peer_rouge_score"))
