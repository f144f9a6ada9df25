"""The solver interface: a solver answers each question from one article, or abstains.

Solvers work in batches: ``solve(articles, questions)`` takes a list of articles (each a list of
paragraph strings) and, per article, the questions to answer from it. Sharing one call across all
systems lets a solver prepare each distinct paragraph once (tokenise, encode) however many systems
retrieved it.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from collections.abc import Sequence

import numpy as np

from ...text.sentences import split_sentences
from ..records import ExamQuestion


@dataclass(frozen=True)
class SolverAnswer:
    """``label``: the chosen choice (None = abstained). ``text``: the answer of a free-text question.
    ``alternatives``: further answers to a free-text question, in the solver's order of preference;
    the question is answered right when the judge accepts ``text`` or any of them, and the first one
    accepted becomes the answer (``free_text="any-paragraph"``).

    Example:

        >>> SolverAnswer("B", 0.8).answered, SolverAnswer(None, 0.0).answered
        (True, False)
    """

    label: str | None
    confidence: float
    text: str | None = None
    alternatives: tuple[str, ...] = ()

    @property
    def answered(self) -> bool:
        return self.label is not None or self.text is not None


ABSTAIN = SolverAnswer(None, 0.0)


class Solver(ABC):
    """Answers exam questions from articles. Subclasses set ``name`` and ``settings()``.

    Example:

        >>> class FirstChoice(Solver):
        ...     name = "first-choice"
        ...     def solve(self, articles, questions):
        ...         return [[SolverAnswer(min(q.choices), 1.0) for q in qs] for qs in questions]
        >>> from qascore.exam import ExamQuestion
        >>> FirstChoice().solve([["any text"]], [[ExamQuestion("q1", "1", "?", {"A": "x", "B": "y"}, "B")]])
        [[SolverAnswer(label='A', confidence=1.0, text=None, alternatives=())]]
    """

    name: str = "solver"

    @abstractmethod
    def solve(self, articles: Sequence[Sequence[str]],
              questions: Sequence[Sequence[ExamQuestion]]) -> list[list[SolverAnswer]]:
        """One answer per question, in the order given, for each article."""

    def settings(self) -> dict:
        return {}


class SentenceCorpus:
    """Distinct paragraphs of a batch of articles, split into sentences once.

    ``sentences`` lists every distinct paragraph's sentences in order; paragraph p owns
    ``sentences[par_sent_off[p]:par_sent_off[p+1]]``; article a is paragraphs
    ``art_pars[art_par_off[a]:art_par_off[a+1]]``.
    """

    def __init__(self, articles: Sequence[Sequence[str]]):
        index: dict[str, int] = {}
        self.sentences: list[str] = []
        self.paragraphs: list[str] = []  # distinct paragraph p's text
        par_sent_off = [0]
        art_pars: list[int] = []
        art_par_off = [0]
        for paragraphs in articles:
            for text in paragraphs:
                p = index.get(text)
                if p is None:
                    p = index[text] = len(index)
                    self.paragraphs.append(text)
                    self.sentences.extend(split_sentences(text))
                    par_sent_off.append(len(self.sentences))
                art_pars.append(p)
            art_par_off.append(len(art_pars))
        self.par_sent_off = np.asarray(par_sent_off, dtype=np.int64)
        self.art_pars = np.asarray(art_pars, dtype=np.int64)
        self.art_par_off = np.asarray(art_par_off, dtype=np.int64)

    @property
    def n_paragraphs(self) -> int:
        return len(self.par_sent_off) - 1

    def paragraph_index(self, sentence: int) -> int:
        """The distinct paragraph holding global sentence ``sentence``."""
        return int(np.searchsorted(self.par_sent_off, sentence, side="right")) - 1

    def paragraph_of(self, sentence: int) -> str:
        """The text of the distinct paragraph holding global sentence ``sentence``."""
        return self.paragraphs[self.paragraph_index(sentence)]

    def article_paragraphs(self, a: int, first: int | None = None) -> list[str]:
        """The texts of article ``a``'s distinct paragraphs in reading order, distinct paragraph
        ``first`` (when given) moved to the front."""
        order = dict.fromkeys(int(p) for p in self.art_pars[self.art_par_off[a]:self.art_par_off[a + 1]])
        if first is not None:
            order = {first: None, **order}
        return [self.paragraphs[p] for p in order]

    def article_sentence_ids(self, a: int) -> np.ndarray:
        """Global sentence indices of article ``a`` in reading order."""
        pars = self.art_pars[self.art_par_off[a]:self.art_par_off[a + 1]]
        if len(pars) == 0:
            return np.zeros(0, dtype=np.int64)
        return np.concatenate([np.arange(self.par_sent_off[p], self.par_sent_off[p + 1]) for p in pars])


def pick_with_margin(scores: np.ndarray, margin: float, floor: float = 0.0) -> tuple[int, float]:
    """The best index if it beats the runner-up by more than ``margin`` (and exceeds ``floor``), else -1.

    Returns (index or -1, best minus runner-up). A single choice is compared with ``floor``.
    """
    if len(scores) == 0:
        return -1, 0.0
    order = np.argsort(-scores, kind="stable")
    best = float(scores[order[0]])
    second = float(scores[order[1]]) if len(scores) > 1 else floor
    gap = best - max(second, floor)
    if best <= floor or gap <= margin:
        return -1, max(gap, 0.0)
    return int(order[0]), gap
