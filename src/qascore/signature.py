"""Reproducibility signatures: every result records the settings that produced it (as sacrebleu does)."""
from __future__ import annotations

from . import __version__


def make_signature(metric: str, **settings) -> str:
    """``qascore:<metric>|key:value|...|version:X``, keys in the order given; bools as yes/no."""
    parts = [f"qascore:{metric}"]
    for key, value in settings.items():
        if isinstance(value, bool):
            value = "yes" if value else "no"
        parts.append(f"{key}:{value}")
    parts.append(f"version:{__version__}")
    return "|".join(parts)
