"""Sentence splitting, the one place texts are cut into sentences: answers and articles (EXAM's
solvers, nugget assignment by a judge, long candidates read by a judge) and rougeLsum's summaries.

Three rules (:data:`SENTENCE_RULES`): ``"punctuation"`` cuts at ``.``, ``!`` or ``?`` followed by
space and a capital or digit, and at line breaks, and strips each piece; ``"lines"`` and
``"nltk"`` are rouge-score's rougeLsum sentences (its lines, or ``nltk.sent_tokenize`` with
``split_summaries``), kept as they are. Every rule drops empty pieces.
"""
from __future__ import annotations

import re

from ..errors import MissingResourceError

__all__ = ["SENTENCE_RULES", "nltk_sentences", "split_sentences"]

SENTENCE_RULES = ("punctuation", "lines", "nltk")

_SENTENCE_BREAK = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])|\n+")


def split_sentences(text: str, rule: str = "punctuation") -> list[str]:
    """The sentences of ``text`` under ``rule`` (one of :data:`SENTENCE_RULES`), empty ones dropped.

    Example:

        >>> from qascore.text.sentences import split_sentences
        >>> split_sentences("It rained. 3 people came!\\nThen none")
        ['It rained.', '3 people came!', 'Then none']
        >>> split_sentences("a b.\\n\\n c", "lines")
        ['a b.', ' c']
        >>> split_sentences("a b.", "commas")
        Traceback (most recent call last):
        ValueError: rule must be one of ('punctuation', 'lines', 'nltk'), got 'commas'

    :param text: the text.
    :param rule: ``"punctuation"`` (the default), ``"lines"`` or ``"nltk"`` (rouge-score's
        ``split_summaries``; needs nltk and its ``punkt_tab`` data).
    :returns: the sentences, in order.
    :raises ValueError: for an unknown rule.
    :raises ImportError: for ``"nltk"`` without nltk installed.
    :raises qascore.errors.MissingResourceError: for ``"nltk"`` without its Punkt model.
    """
    if rule == "lines":
        return [s for s in text.split("\n") if s]
    if rule == "punctuation":
        return [s.strip() for s in _SENTENCE_BREAK.split(text) if s and s.strip()]
    if rule == "nltk":
        return [s for s in nltk_sentences(text) if s]
    raise ValueError(f"rule must be one of {SENTENCE_RULES}, got {rule!r}")


def nltk_sentences(text: str) -> list[str]:
    """``nltk.sent_tokenize(text)``, the sentences of rouge-score's ``split_summaries`` (the
    ``"nltk"`` rule of :func:`split_sentences`, which also drops empty ones), with one-line errors
    when NLTK or its data is missing. A call on any text checks both, as ``qascore rouge
    --split-summaries`` does before reading its input.

    Example (skipped in the doctests: NLTK's Punkt model ``punkt_tab`` is a separate download,
    absent where the tests run offline):

        >>> from qascore.text.sentences import nltk_sentences
        >>> nltk_sentences("It rained. Then none.")  # doctest: +SKIP
        ['It rained.', 'Then none.']

    :param text: the text.
    :returns: its sentences, as NLTK gives them.
    :raises ImportError: without nltk installed.
    :raises qascore.errors.MissingResourceError: without the ``punkt_tab`` data, naming the
        command that downloads it.
    """
    try:
        import nltk
    except ImportError:
        raise ImportError("split_summaries=True needs nltk (pip install nltk) with its punkt_tab data") from None
    try:
        return nltk.sent_tokenize(text)
    except LookupError:
        raise MissingResourceError(
            "split_summaries=True (--split-summaries) needs NLTK's Punkt sentence model 'punkt_tab', which is "
            "not installed: run `python -m nltk.downloader punkt_tab` (rouge-score needs the same data)"
        ) from None
