"""Short-answer normalisation (SQuAD's: lower case, no punctuation, no articles, single spaces)
and the containment test built on it, shared by every judge and baseline."""
from __future__ import annotations

import re
import string

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = str.maketrans("", "", string.punctuation)


def normalise_answer(text: str) -> str:
    """SQuAD's answer normalisation: lower case, ASCII punctuation removed, articles removed,
    whitespace collapsed."""
    return " ".join(_ARTICLES.sub(" ", text.lower().translate(_PUNCT)).split())


def contains_answer(candidate: str, reference: str) -> bool:
    """Whether the normalised ``reference`` occurs in the normalised ``candidate`` as a substring
    (EVOUNA's containment baseline); an empty reference matches nothing. Both already normalised."""
    return bool(reference) and reference in candidate
