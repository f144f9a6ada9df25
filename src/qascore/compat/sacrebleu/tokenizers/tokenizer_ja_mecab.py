"""``sacrebleu.tokenizers.tokenizer_ja_mecab``: Japanese, MeCab with the IPA dictionary (pip install "qascore[ja]")."""
from .tokenizer_base import NativeTokenizer


class TokenizerJaMecab(NativeTokenizer):
    _name = "ja-mecab"
