"""sacreBLEU's tokenisers (``13a``, ``none``, ``intl``, ``zh``, ``char``), reproduced exactly.

Each tokeniser is a callable returning the tokenised line (tokens joined by single spaces),
as sacrebleu's are; ``tokenize`` returns the token list BLEU counts (``line.split()``).
The quirks of sacrebleu 2.6 are kept on purpose so scores agree bit for bit:

* ``13a`` pads the line with one space on each side, which lets a final ``.`` after a digit split;
* ``zh``'s range table contains three-character strings such as ``'\\u20000'`` (meant to be
  U+20000); compared against one character they select U+2001..U+2A6D and U+2F81..U+2FA1,
  and we select exactly that;
* ``intl`` uses the Unicode tables of the third-party ``regex`` module (as sacrebleu does),
  which are newer than Python's ``unicodedata``; it therefore needs ``regex`` installed.
"""
from __future__ import annotations

import re

# 13a / zh post-tokeniser (mteval-v13a): four substitutions applied one after another.
_REGEXP_RULES = (
    (re.compile(r"([\{-\~\[-\` -\&\(-\+\:-\@\/])"), r" \1 "),
    (re.compile(r"([^0-9])([\.,])"), r"\1 \2 "),
    (re.compile(r"([\.,])([^0-9])"), r" \1 \2"),
    (re.compile(r"([0-9])(-)"), r"\1 \2 "),
)


def _regexp_tokenize(line: str) -> str:
    for pattern, replacement in _REGEXP_RULES:
        line = pattern.sub(replacement, line)
    return " ".join(line.split())


def _unescape_13a(line: str) -> str:
    """The language-independent part of 13a, replacements in sacrebleu's order."""
    line = line.replace("<skipped>", "")
    line = line.replace("-\n", "")
    line = line.replace("\n", " ")
    if "&" in line:
        line = line.replace("&quot;", '"')
        line = line.replace("&amp;", "&")
        line = line.replace("&lt;", "<")
        line = line.replace("&gt;", ">")
    return line


class SacreTokenizer:
    """Base: ``__call__`` gives the tokenised line, ``tokenize`` the token list."""

    name = ""

    def __call__(self, line: str) -> str:
        raise NotImplementedError

    def tokenize(self, line: str) -> list[str]:
        return self(line).split()

    def tokenize_batch(self, lines) -> list[list[str]]:
        return [self(line).split() for line in lines]


class Tokenizer13a(SacreTokenizer):
    name = "13a"

    def __call__(self, line: str) -> str:
        return _regexp_tokenize(f" {_unescape_13a(line)} ")


class TokenizerNone(SacreTokenizer):
    name = "none"

    def __call__(self, line: str) -> str:
        return line


class TokenizerChar(SacreTokenizer):
    name = "char"

    def __call__(self, line: str) -> str:
        return " ".join(line)


# sacrebleu's table, verbatim as strings; see _chinese_intervals for how a character compares.
_ZH_RANGES = (
    ("\u3400", "\u4db5"), ("\u4e00", "\u9fa5"), ("\u9fa6", "\u9fbb"), ("\uf900", "\ufa2d"),
    ("\ufa30", "\ufa6a"), ("\ufa70", "\ufad9"), ("\u20000", "\u2a6d6"), ("\u2f800", "\u2fa1d"),
    ("\uff00", "\uffef"), ("\u2e80", "\u2eff"), ("\u3000", "\u303f"), ("\u31c0", "\u31ef"),
    ("\u2f00", "\u2fdf"), ("\u2ff0", "\u2fff"), ("\u3100", "\u312f"), ("\u31a0", "\u31bf"),
    ("\ufe10", "\ufe1f"), ("\ufe30", "\ufe4f"), ("\u2600", "\u26ff"), ("\u2700", "\u27bf"),
    ("\u3200", "\u32ff"), ("\u3300", "\u33ff"),
)


def _chinese_intervals() -> list[tuple[int, int]]:
    """Code point intervals c with ``start <= c <= end`` under Python string comparison.

    A one-character string is below a longer string that starts with the same character, so
    a longer ``start`` excludes its first character and a longer ``end`` includes its first.
    """
    out = []
    for start, end in _ZH_RANGES:
        lo = ord(start[0]) + (1 if len(start) > 1 else 0)
        hi = ord(end[0])
        out.append((lo, hi))
    return out


def _char_class(intervals) -> str:
    return "".join(f"\\U{lo:08x}-\\U{hi:08x}" for lo, hi in intervals if lo <= hi)


_ZH_CHAR = re.compile(f"([{_char_class(_chinese_intervals())}])")


def is_sacrebleu_chinese_char(ch: str) -> bool:
    """sacrebleu's ``TokenizerZh._is_chinese_char`` for one character."""
    return _ZH_CHAR.fullmatch(ch) is not None


class TokenizerZh(SacreTokenizer):
    name = "zh"

    def __call__(self, line: str) -> str:
        return _regexp_tokenize(_ZH_CHAR.sub(r" \1 ", line.strip()))


class TokenizerIntl(SacreTokenizer):
    name = "intl"

    def __init__(self) -> None:
        try:
            import regex
        except ImportError:  # pragma: no cover - regex ships with the test extra
            raise ImportError(
                "the 'intl' tokeniser needs the 'regex' package (pip install regex), "
                "whose Unicode tables sacrebleu uses"
            ) from None
        self._rules = (
            (regex.compile(r"(\P{N})(\p{P})"), r"\1 \2 "),
            (regex.compile(r"(\p{P})(\P{N})"), r" \1 \2"),
            (regex.compile(r"(\p{S})"), r" \1 "),
        )

    def __call__(self, line: str) -> str:
        for pattern, replacement in self._rules:
            line = pattern.sub(replacement, line)
        return " ".join(line.split())


_TOKENIZERS = {
    "13a": Tokenizer13a,
    "none": TokenizerNone,
    "intl": TokenizerIntl,
    "zh": TokenizerZh,
    "char": TokenizerChar,
}
SACREBLEU_TOKENIZERS = tuple(_TOKENIZERS)


def get_sacrebleu_tokenizer(name: str) -> SacreTokenizer:
    """One of ``13a``, ``none``, ``intl``, ``zh``, ``char`` (sacrebleu's names)."""
    try:
        return _TOKENIZERS[name]()
    except KeyError:
        raise ValueError(
            f"unknown sacrebleu tokenizer {name!r}; known: {', '.join(SACREBLEU_TOKENIZERS)}"
        ) from None


def preprocess_segment(line: str, tokenizer: SacreTokenizer, lowercase: bool = False) -> list[str]:
    """sacrebleu's BLEU preprocessing: optional lowercase, strip trailing whitespace, tokenise."""
    if lowercase:
        line = line.lower()
    return tokenizer(line.rstrip()).split()
