"""``sacrebleu.tokenizers.tokenizer_base``: the base class, and the one wrapper every provided
tokeniser class is (a callable line -> tokenised line, ``signature()`` as sacrebleu records it)."""
from __future__ import annotations

from ....text.sacrebleu_tokenizers import get_sacrebleu_tokenizer
from ....text.tokenizers import Tokenizer


class BaseTokenizer:
    """A base dummy tokenizer to derive from (sacrebleu's)."""

    def signature(self):
        raise NotImplementedError()

    def __call__(self, line):
        raise NotImplementedError()


class NativeTokenizer(BaseTokenizer):
    """sacrebleu's tokeniser ``_name`` on qascore's (same output, bit for bit)."""

    _name = ""

    def __init__(self) -> None:
        self._tokenizer: Tokenizer = get_sacrebleu_tokenizer(self._name)

    def signature(self) -> str:
        return self._tokenizer.signature()

    def __call__(self, line: str) -> str:
        return self._tokenizer(line)
