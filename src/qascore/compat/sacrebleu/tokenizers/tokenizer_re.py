"""``sacrebleu.tokenizers.tokenizer_re``: the mteval-v13a post-tokeniser that ``13a`` and ``zh`` end with."""
from ....text.sacrebleu_tokenizers import regexp_tokenize
from .tokenizer_base import BaseTokenizer


class TokenizerRegexp(BaseTokenizer):
    def signature(self) -> str:
        return "re"

    def __call__(self, line: str) -> str:
        return regexp_tokenize(line)
