"""The text layer every method shares: normalisers and tokenisers -> packed token ids.

Every tokeniser (rouge-score's, sacrebleu's, TER's, the term tokeniser of EXAM and the nuggets)
is a member of one protocol (:class:`Tokenizer`, base :class:`TokenizerBase`) and one registry:
``get_tokenizer(name, **options)``.

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
    TokenizerBase,
    UnicodeWordTokenizer,
    WhitespaceTokenizer,
    WordTermTokenizer,
    get_tokenizer,
    register_tokenizer,
    tokenizer_names,
)

__all__ = [
    "PackedTokens",
    "Vocabulary",
    "Tokenizer",
    "TokenizerBase",
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
    "tokenizer_names",
]
