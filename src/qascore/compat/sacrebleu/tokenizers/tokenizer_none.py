"""``sacrebleu.tokenizers.tokenizer_none``: Don't apply any tokenization."""
from .tokenizer_base import NativeTokenizer


class NoneTokenizer(NativeTokenizer):
    _name = "none"
