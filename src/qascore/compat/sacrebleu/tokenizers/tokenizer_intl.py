"""``sacrebleu.tokenizers.tokenizer_intl``: mteval-v14's international tokenisation (Unicode classes)."""
from .tokenizer_base import NativeTokenizer


class TokenizerV14International(NativeTokenizer):
    _name = "intl"
