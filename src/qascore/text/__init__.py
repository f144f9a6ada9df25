"""The text layer every method shares: normalisers and tokenisers -> packed token ids.

A batch of texts becomes one flat int32 array of token ids plus int64 offsets (row i is
``ids[offsets[i]:offsets[i+1]]``). Ids are interned by a :class:`Vocabulary`, so predictions and
references packed with the same vocabulary compare by id in the kernels.
"""
from .packing import PackedTokens, Vocabulary, check_texts
from .porter import PorterStemmer, porter_stem
from .tokenizers import (
    CharTokenizer,
    RougeTokenizer,
    Tokenizer,
    UnicodeWordTokenizer,
    WhitespaceTokenizer,
    WordTermTokenizer,
    get_tokenizer,
    register_tokenizer,
)

__all__ = [
    "PackedTokens",
    "Vocabulary",
    "Tokenizer",
    "RougeTokenizer",
    "UnicodeWordTokenizer",
    "WhitespaceTokenizer",
    "CharTokenizer",
    "WordTermTokenizer",
    "PorterStemmer",
    "porter_stem",
    "check_texts",
    "get_tokenizer",
    "register_tokenizer",
]
