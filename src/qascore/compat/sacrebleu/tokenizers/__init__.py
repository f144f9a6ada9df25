"""``sacrebleu.tokenizers``: every sacrebleu 2.6 tokeniser class under its module name, each on
qascore's tokeniser of the same name (:mod:`qascore.text.sacrebleu_tokenizers`)."""
from .tokenizer_base import BaseTokenizer

__all__ = ["BaseTokenizer"]
