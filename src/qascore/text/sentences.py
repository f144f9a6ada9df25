"""Sentence splitting for answers and articles (EXAM's solvers, nugget assignment by a judge)."""
from __future__ import annotations

import re

_SENTENCE_BREAK = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])|\n+")


def split_sentences(text: str) -> list[str]:
    """Split at ., ! or ? followed by space and a capital/digit, and at line breaks; drop empty pieces."""
    return [s.strip() for s in _SENTENCE_BREAK.split(text) if s and s.strip()]
