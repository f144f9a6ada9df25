"""sacrebleu 2.6.0's test suite, from its source distribution on the package index."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

VERSION = "2.6.0"


def fetch(dest: Path) -> None:
    """Put sacrebleu's ``test/`` folder (tests and the pickled WMT17 systems they read, by the
    relative path ``./test/...``, so pytest runs from ``dest``) into ``dest``."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
                        "--dest", tmp, f"sacrebleu=={VERSION}"], check=True)
        (archive,) = Path(tmp).glob("sacrebleu-*.tar.gz")
        with tarfile.open(archive) as tar:
            members = [m for m in tar.getmembers() if m.isfile() and m.name.split("/")[1:2] == ["test"]]
            tar.extractall(tmp, members=members, filter="data")
        shutil.copytree(Path(tmp) / f"sacrebleu-{VERSION}" / "test", dest / "test")


def cached_test_file(name: str) -> Path | None:
    """One file of sacrebleu's ``test/`` folder (``wmt17_en_de_systems.pkl.bz2``: the WMT17 en-de
    systems and reference), kept in ``~/.cache/qascore/`` and fetched there the first time;
    ``None`` when it cannot be fetched (offline, no pip)."""
    cached = Path.home() / ".cache" / "qascore" / name
    if cached.is_file():
        return cached
    try:
        with tempfile.TemporaryDirectory() as tmp:
            fetch(Path(tmp))
            cached.parent.mkdir(parents=True, exist_ok=True)
            partial = cached.with_name(f"{name}.{os.getpid()}.part")
            partial.write_bytes((Path(tmp) / "test" / name).read_bytes())
            partial.replace(cached)  # whole or not at all, when two runs fetch at once
        return cached
    except (OSError, subprocess.CalledProcessError, ValueError):
        return None
