"""The Tercom tokeniser of sacrebleu 2.6 (``sacrebleu.tokenizers.tokenizer_ter.TercomTokenizer``), output
for output: lowercasing, Tercom's Western (and optionally CJK) normalisation, punctuation removal, and
whitespace runs collapsed to single spaces.

The rules are applied in sacrebleu's order, each as one substitution pass over the whole sentence
(the order matters: ``&amp;lt;`` becomes ``&lt;``, never ``<``). Literal patterns use ``str.replace``,
the same left-to-right, non-overlapping replacement as a regex without metacharacters.
The tokeniser is a member of the one protocol and registry of :mod:`qascore.text.tokenizers`.
"""
from __future__ import annotations

import re
from functools import lru_cache

from ..validate import check_flag
from .tokenizers import TokenizerBase

__all__ = ["TercomTokenizer"]

# sacrebleu's code point ranges for CJK and full-width punctuation.
_ASIAN_PUNCT = "[\u3001\u3002\u3008-\u3011\u3014-\u301f\uff61-\uff65\u30fb]"
_FULL_WIDTH_PUNCT = "[\uff0e\uff0c\uff1f\uff1a\uff1b\uff01\uff02\uff08\uff09]"

_XML_ESCAPES = (("&quot;", '"'), ("&amp;", "&"), ("&lt;", "<"), ("&gt;", ">"))

# Tercom pads the space and every ASCII punctuation mark but ' , - . with spaces, each character
# once: the space first, then the others one by one, does what sacrebleu's one regex pass does
# (the spaces they add are not padded again), several times faster.
_PADDED = [chr(c) for c in range(33, 128) if re.fullmatch(r"[{-~[-` -&(-+:-@/]", chr(c))]
_MARKS = re.compile(r"[.,]")
_DIGITS = frozenset("0123456789")
# sacrebleu's ([0-9])(-) -> \1 \2 : such matches never overlap, so a dash looking back at its digit
# does the same (and starting at the dash lets the regex engine skip to it).
_DASH_AFTER_DIGIT = re.compile(r"-(?<=[0-9]-)")
# CJK ideographs, strokes, radicals, compatibility forms and enclosed letters, and CJK and full-width
# punctuation become tokens of their own. sacrebleu pads each range in a pass of its own; one pass
# over their union differs only in runs of spaces, which the final split collapses. sacrebleu also
# has three rules for runs of kana anchored at the start of the sentence; they can never fire, since
# Western normalisation (always run first) starts the sentence with a space.
_ASIAN = re.compile(
    "([\u4e00-\u9fff\u3400-\u4dbf\u31c0-\u31ef\u2e80-\u2eff\u3300-\u33ff\uf900-\ufaff\ufe30-\ufe4f"
    f"\u3200-\u3f22]|{_ASIAN_PUNCT}|{_FULL_WIDTH_PUNCT})"
)
_PUNCT = re.compile(r"[\.,\?:;!\"\(\)]")
_ASIAN_PUNCT_RE = re.compile(f"{_ASIAN_PUNCT}|{_FULL_WIDTH_PUNCT}")


def _space_marks(sent: str, step: int) -> str:
    r"""Spaces around each period and comma whose neighbour (step -1: the character before it, +1:
    after it) exists and is not an ASCII digit: sacrebleu's ``([^0-9])([\.,])`` -> ``\1 \2 ``
    (step -1) and ``([\.,])([^0-9])`` -> `` \1 \2`` (step +1), both of which insert exactly these
    spaces. As in those passes, matches (mark and neighbour) may not overlap. A loop over the marks
    instead of a regex that tries every position: several times faster."""
    parts = []
    last = 0
    end = -1  # the last character of the previous match
    for match in _MARKS.finditer(sent):
        mark = match.start()
        side = mark + step
        if min(mark, side) > end and side < len(sent) and sent[side] not in _DIGITS:
            parts.append(sent[last:mark])
            parts.append(f" {sent[mark]} ")
            last = mark + 1
            end = max(mark, side)
    if not parts:
        return sent
    parts.append(sent[last:])
    return "".join(parts)


def _normalize_western(sent: str) -> str:
    sent = sent.replace("\n-", "").replace("\n", " ")  # join lines, undoing end-of-line hyphenation
    for escaped, char in _XML_ESCAPES:
        sent = sent.replace(escaped, char)
    sent = f" {sent} ".replace(" ", "   ")
    for char in _PADDED:
        if char in sent:
            sent = sent.replace(char, f" {char} ")
    # Possessives. (sacrebleu also splits a final 's; the sentence always ends in a space here.)
    sent = sent.replace("'s ", " 's ")
    sent = _space_marks(sent, -1)  # period and comma, unless after a digit
    sent = _space_marks(sent, 1)  # period and comma, unless before a digit
    return _DASH_AFTER_DIGIT.sub(" - ", sent)


@lru_cache(maxsize=2**16)
def _tokenize(sent: str, normalized: bool, no_punct: bool, asian_support: bool, case_sensitive: bool) -> str:
    if not case_sensitive:
        sent = sent.lower()
    if normalized:
        sent = _normalize_western(sent)
        if asian_support:
            sent = _ASIAN.sub(r" \1 ", sent)
    if no_punct:
        sent = _PUNCT.sub("", sent)
        if asian_support:
            sent = _ASIAN_PUNCT_RE.sub("", sent)
    return " ".join(sent.split())


class TercomTokenizer(TokenizerBase):
    """``tok(sentence) -> str``: sacrebleu's Tercom tokeniser with the same four options, a member
    of the one tokeniser registry (``get_tokenizer("tercom", normalized=True)``).

    ``normalized`` applies Tercom's normalisation (line joins, XML unescaping, punctuation split
    off); with ``asian_support`` it also splits CJK characters apart. ``no_punct`` removes
    punctuation (with ``asian_support``, CJK and full-width punctuation too). Text is lowercased
    unless ``case_sensitive``. Results are cached (the last 65,536 distinct calls, all options).

    Example:

        >>> from qascore.text.tercom import TercomTokenizer
        >>> TercomTokenizer()("Hello, World!")  # TER's default: lowercase, split on whitespace
        'hello, world!'
        >>> TercomTokenizer(normalized=True)("Hello, World! It's 3.5 &amp; more")
        "hello , world ! it 's 3.5 & more"
        >>> TercomTokenizer(no_punct=True, case_sensitive=True).tokenize("Hello, World!")
        ['Hello', 'World']

    :param normalized: apply Tercom's Western normalisation.
    :param no_punct: remove punctuation.
    :param asian_support: with ``normalized`` or ``no_punct``, treat CJK characters and punctuation too.
    :param case_sensitive: keep the case (else lowercase).
    :raises TypeError: for an option that is not a bool; a call raises it for a text that is not a str.
    """

    __slots__ = ("normalized", "no_punct", "asian_support", "case_sensitive", "_key")
    name = "tercom"

    def __init__(self, normalized: bool = False, no_punct: bool = False, asian_support: bool = False,
                 case_sensitive: bool = False) -> None:
        self.normalized = check_flag(normalized, "normalized")
        self.no_punct = check_flag(no_punct, "no_punct")
        self.asian_support = check_flag(asian_support, "asian_support")
        self.case_sensitive = check_flag(case_sensitive, "case_sensitive")
        self._key = (self.normalized, self.no_punct, self.asian_support, self.case_sensitive)

    @property
    def trivial(self) -> bool:
        """True when the tokeniser only lowercases (or not) and splits on whitespace."""
        return not (self.normalized or self.no_punct)

    def __call__(self, sent: str) -> str:
        if not isinstance(sent, str):
            raise TypeError(f"TercomTokenizer expects a str, got {type(sent).__name__}")
        return _tokenize(sent, *self._key) if sent else ""

    def __repr__(self) -> str:
        return (f"TercomTokenizer(normalized={self.normalized}, no_punct={self.no_punct}, "
                f"asian_support={self.asian_support}, case_sensitive={self.case_sensitive})")
