"""``sacrebleu.tokenizers.tokenizer_zh``: Chinese characters split apart, then mteval-v13a's rules."""
from ....text.sacrebleu_tokenizers import is_sacrebleu_chinese_char
from .tokenizer_base import NativeTokenizer


class TokenizerZh(NativeTokenizer):
    _name = "zh"
    _is_chinese_char = staticmethod(is_sacrebleu_chinese_char)
