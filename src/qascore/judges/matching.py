"""Judges by string matching: no model, probabilities 0 or 1.

- :class:`ContainmentJudge` -- correct when a reference, normalised as SQuAD does (lower case, no
  punctuation, no articles), occurs in the normalised candidate (EVOUNA's containment baseline);
  :class:`ExactMatchJudge` and :class:`TokenF1Judge` -- SQuAD's exact match and token F1 >= 0.5.
- :class:`WorkbenchJudge` -- the rubric grading workbench's free-text verification: both answer and
  gold are normalised (lowercase, punctuation and stopwords removed, each word Porter stemmed,
  joined by single spaces); they match when equal, or when both have at least 4 characters and
  their fuzzy ratio (indel similarity, as fuzzywuzzy/rapidfuzz ``fuzz.ratio``) exceeds 80.
  ``contains`` mode also accepts an answer whose normalised words contain a gold answer's words as
  a contiguous run: extractive solvers answer with a whole sentence, which the strict comparison
  would nearly always reject.
"""
from __future__ import annotations

from collections import Counter

import numpy as np

from .._kernels.lcs import char_lcs_length
from ..prf import f_score
from ..text import WordTermTokenizer, porter_stem
from ..text.answers import contains_answer, normalise_answer
from ..text.stopwords import STOPWORDS
from ..validate import check_real
from .base import Judge
from .triples import check_rule, check_triples, combine_by_owner, expand_rows

FUZZY_THRESHOLD = 80.0
FUZZY_MIN_CHARS = 4
WORKBENCH_MODES = ("workbench", "contains")

# the workbench's normalisation: every word stemmed (no length limit), stopwords out
_ANSWER_TERMS = WordTermTokenizer(stem=porter_stem, stopwords=STOPWORDS)


class SquadMatchJudge(Judge):
    """Base of the judges that compare SQuAD-normalised strings (lower case, no punctuation, no
    articles) reference by reference: ``row_score(candidate, reference)`` per reference, combined by
    ``refs`` (``max``: the best reference; ``mean``: the average over references)."""

    name = "squad-match"

    def __init__(self, refs: str = "max", threshold: float = 0.5) -> None:
        self.refs = check_rule(refs)
        self.threshold = float(check_real(threshold, "threshold", low=0.0, high=1.0))

    @staticmethod
    def row_score(candidate: str, reference: str) -> float:
        raise NotImplementedError

    def with_refs(self, refs: str, threshold: float | None = None):
        return type(self)(refs, self.threshold if threshold is None else threshold)

    def settings(self) -> dict:
        return dict(normalise="squad", refs=self.refs, threshold=f"{self.threshold:.2f}")


    def predict_proba(self, questions, references, candidates) -> np.ndarray:
        questions, references, candidates = check_triples(questions, references, candidates)
        _, r, t, owner = expand_rows(questions, references, candidates, distinct=self.refs == "max")
        n = len(candidates)
        normalised: dict = {}

        def norm(text: str) -> str:
            if text not in normalised:
                normalised[text] = normalise_answer(text)
            return normalised[text]

        scores = np.fromiter((self.row_score(norm(cand), norm(ref)) for ref, cand in zip(r, t)),
                             dtype=np.float64, count=len(r))
        return combine_by_owner(scores, owner, n, self.refs)


class ContainmentJudge(SquadMatchJudge):
    """p = 1 when the normalised reference occurs in the normalised candidate, else 0 (EVOUNA's
    containment baseline); with several references, ``max``: any of them, ``mean``: the share found.

    Example:

        >>> ContainmentJudge().predict_proba(["who wrote Hamlet?", "capital of France?"],
        ...                                  [["Shakespeare", "Marlowe"], "Paris"],
        ...                                  ["It was Shakespeare.", "Lyon"]).tolist()
        [1.0, 0.0]
        >>> ContainmentJudge(refs="mean").predict_proba(["who wrote Hamlet?"], [["Shakespeare", "Marlowe"]],
        ...                                             ["It was Shakespeare."]).tolist()
        [0.5]

    :param refs: ``max`` or ``mean`` (how several references combine).
    :param threshold: p(correct) at or above it is judged correct.
    :raises ValueError: for an unknown rule or a threshold outside [0, 1].
    """

    name = "containment"

    @staticmethod
    def row_score(candidate: str, reference: str) -> float:
        return float(contains_answer(candidate, reference))


class ExactMatchJudge(SquadMatchJudge):
    """p = 1 when the normalised candidate equals a normalised reference (SQuAD's exact match).

    Example:

        >>> ExactMatchJudge().predict(["capital of France?"] * 2, ["Paris"] * 2,
        ...                           ["The Paris!", "Paris, France"]).tolist()
        [1, 0]

    :param refs: ``max`` or ``mean`` (how several references combine).
    :param threshold: p(correct) at or above it is judged correct.
    """

    name = "exact-match"

    @staticmethod
    def row_score(candidate: str, reference: str) -> float:
        return float(candidate == reference)


class TokenF1Judge(SquadMatchJudge):
    """p = SQuAD's token F1 between the normalised candidate and reference; correct at F1 >= 0.5.

    Example:

        >>> TokenF1Judge().predict_proba(["capital of France?"], ["Paris"], ["paris france"]).round(4).tolist()
        [0.6667]

    :param refs: ``max`` or ``mean`` (how several references combine).
    :param threshold: p(correct) at or above it is judged correct.
    """

    name = "token-f1"

    @staticmethod
    def row_score(candidate: str, reference: str) -> float:
        pred, gold = candidate.split(), reference.split()
        common = sum((Counter(pred) & Counter(gold)).values())
        if common == 0:
            return 0.0
        precision, recall = common / len(pred), common / len(gold)
        return f_score(precision, recall)


class WorkbenchJudge(Judge):
    """The rubric grading workbench's verification (``mode="workbench"``), or with contiguous
    containment of a gold answer's words (``mode="contains"``, the default): p = 1 when the answer
    matches any reference, else 0. The question is not read.

    Example:

        >>> WorkbenchJudge().predict(["who wrote Hamlet?"] * 2, ["William Shakespeare"] * 2,
        ...                          ["It was William Shakespeare.", "Marlowe"]).tolist()
        [1, 0]

    :param mode: ``contains`` (default) or ``workbench``.
    :raises ValueError: for another mode.
    """

    name = "workbench"

    def __init__(self, mode: str = "contains") -> None:
        if mode not in WORKBENCH_MODES:
            raise ValueError(f"mode must be 'workbench' or 'contains', got {mode!r}")
        self.mode = mode
        self.threshold = 0.5

    def settings(self) -> dict:
        return dict(mode=self.mode, fuzzy=f">{FUZZY_THRESHOLD:g}")


    def predict_proba(self, questions, references, candidates) -> np.ndarray:
        questions, references, candidates = check_triples(questions, references, candidates)
        n = len(candidates)
        refs = [[r] if isinstance(r, str) else r for r in references]
        return np.fromiter((verify_free_text(c, g, mode=self.mode) for c, g in zip(candidates, refs)),
                           dtype=np.float64, count=n)


def normalise_workbench_answer(text: str) -> str:
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
    """True when ``answer`` matches one of ``gold_answers``; ``mode`` is ``workbench`` or ``contains``.

    Both sides are normalised (lower case, words, stopwords removed, Porter stems); ``workbench``
    also accepts a fuzzy match, ``contains`` a gold answer's words contiguous in the answer.

    Example:

        >>> verify_free_text("The play was written by William Shakespeare", ["William Shakespeare"])
        True
        >>> verify_free_text("Marlowe", ["Shakespeare"])
        False

    :param answer: the free-text answer.
    :param gold_answers: the acceptable answers (an iterable of strings).
    :param mode: ``contains`` or ``workbench``.
    :returns: whether the answer matches one of them.
    :raises ValueError: for another mode.
    """
    if mode not in WORKBENCH_MODES:
        raise ValueError(f"mode must be 'workbench' or 'contains', got {mode!r}")
    norm = normalise_workbench_answer(answer)
    if not norm:
        return False
    words = norm.split()
    for gold in gold_answers:
        g = normalise_workbench_answer(gold)
        if not g:
            continue
        if norm == g:
            return True
        if len(norm) >= FUZZY_MIN_CHARS and len(g) >= FUZZY_MIN_CHARS and indel_ratio(norm, g) > FUZZY_THRESHOLD:
            return True
        if mode == "contains" and _contains_run(words, g.split()):
            return True
    return False
