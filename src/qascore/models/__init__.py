"""Model files bundled with qascore (ONNX graphs and tokenizers); data only, no code."""
from __future__ import annotations

from importlib import resources
from pathlib import Path


def bundled_path(*parts: str) -> Path:
    """Filesystem path of a file bundled under ``qascore/models``."""
    return Path(str(resources.files("qascore.models").joinpath(*parts)))
