"""Free-text answer verification as the rubric grading workbench does it.

Both answer and gold are normalised (lowercase, punctuation and stopwords removed, each word Porter
stemmed, joined by single spaces); they match when equal, or when both have at least 4 characters and
their fuzzy ratio (indel similarity, as fuzzywuzzy/rapidfuzz ``fuzz.ratio``) exceeds 80.

``contains`` mode additionally accepts an answer whose normalised words contain a gold answer's words
as a contiguous run: extractive solvers answer with a whole sentence, which the strict comparison
would nearly always reject.
"""
from __future__ import annotations


from .._kernels.lcs import char_lcs_length
from ..text import WordTermTokenizer, porter_stem
from ..text.stopwords import STOPWORDS

FUZZY_THRESHOLD = 80.0
FUZZY_MIN_CHARS = 4


# the workbench's normalisation: every word stemmed (no length limit), stopwords out
_ANSWER_TERMS = WordTermTokenizer(stem=porter_stem, stopwords=STOPWORDS)


def normalize_answer(text: str) -> str:
    """Lowercase, ``\\w+`` words, stopwords removed, each word Porter-stemmed, joined by spaces."""
    return " ".join(_ANSWER_TERMS.tokenize(text))


def indel_ratio(a: str, b: str) -> float:
    """100 * 2 * LCS(a, b) / (len(a) + len(b)) over characters; 100 for two empty strings."""
    if not a and not b:
        return 100.0
    return 200.0 * char_lcs_length(a, b) / (len(a) + len(b))


def _contains_run(haystack: list[str], needle: list[str]) -> bool:
    n = len(needle)
    return n > 0 and any(haystack[i:i + n] == needle for i in range(len(haystack) - n + 1))


def verify_free_text(answer: str, gold_answers, *, mode: str = "contains") -> bool:
    """True when ``answer`` matches one of ``gold_answers``; ``mode`` is ``workbench`` or ``contains``."""
    if mode not in ("workbench", "contains"):
        raise ValueError(f"mode must be 'workbench' or 'contains', got {mode!r}")
    norm = normalize_answer(answer)
    if not norm:
        return False
    words = norm.split()
    for gold in gold_answers:
        g = normalize_answer(gold)
        if not g:
            continue
        if norm == g:
            return True
        if len(norm) >= FUZZY_MIN_CHARS and len(g) >= FUZZY_MIN_CHARS and indel_ratio(norm, g) > FUZZY_THRESHOLD:
            return True
        if mode == "contains" and _contains_run(words, g.split()):
            return True
    return False
