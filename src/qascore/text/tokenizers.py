"""Tokenisers: each turns a string into a list of token strings, one definition per convention."""
from __future__ import annotations

from typing import Protocol, Sequence


class Tokenizer(Protocol):
    name: str

    def tokenize(self, text: str) -> list[str]: ...


class WhitespaceTokenizer:
    """``str.split()``: runs of Unicode whitespace separate tokens; nothing else changes."""

    name = "whitespace"

    def tokenize(self, text: str) -> list[str]:
        return text.split()

    def tokenize_batch(self, texts: Sequence[str]) -> list[list[str]]:
        return [t.split() for t in texts]


class CharTokenizer:
    """DuReader convention: drop whitespace code points, then one token per code point."""

    name = "char"

    def tokenize(self, text: str) -> list[str]:
        return [c for c in text if not c.isspace()]

    def tokenize_batch(self, texts: Sequence[str]) -> list[list[str]]:
        return [self.tokenize(t) for t in texts]


_REGISTRY = {
    "whitespace": WhitespaceTokenizer,
    "char": CharTokenizer,
}


def register_tokenizer(name: str, factory) -> None:
    _REGISTRY[name] = factory


def get_tokenizer(name: str, **options) -> Tokenizer:
    """Build a tokeniser by name (``whitespace``, ``char``, ...)."""
    try:
        factory = _REGISTRY[name]
    except KeyError:
        raise ValueError(f"unknown tokenizer {name!r}; known: {', '.join(sorted(_REGISTRY))}") from None
    return factory(**options)
