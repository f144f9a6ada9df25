"""``sacrebleu.tokenizers.tokenizer_13a``: mteval-v13a, WMT's tokeniser; sacrebleu's default."""
from .tokenizer_base import NativeTokenizer


class Tokenizer13a(NativeTokenizer):
    _name = "13a"
