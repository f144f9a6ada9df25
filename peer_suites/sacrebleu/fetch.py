"""sacrebleu 2.6.0's test suite, from its source distribution on the package index."""
from __future__ import annotations

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
