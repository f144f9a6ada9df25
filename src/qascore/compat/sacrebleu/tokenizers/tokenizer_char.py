"""``sacrebleu.tokenizers.tokenizer_char``: every character a token."""
from .tokenizer_base import NativeTokenizer


class TokenizerChar(NativeTokenizer):
    _name = "char"
