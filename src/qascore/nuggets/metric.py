"""The official TREC nugget F(beta) as a :class:`qascore.metric.Metric`.

A batch is one run's nugget assignments for some questions of the key: ``matched[qid]`` lists the
ids of the nuggets credited to the run on that question (from judgements, Nuggeteer, Pourpre or
any other assigner) and ``responses[qid]`` the run's items there (their non-whitespace length sets
the length allowance). Per-question scores are :func:`~qascore.nuggets.official.score_question`'s.

The run's score is the mean over **every question of the key**: a question the run never answers
scores 0, as in the official scripts. So batches should split the questions (a question in two
batches would count twice), and ``corpus_score`` of all questions at once equals
:func:`~qascore.nuggets.official.score_run`'s ``mean`` (up to the last bit: the sums here are
exact, so any split of the questions gives the same bits).
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from ..metric import CorpusScore, ExampleScores, Metric, Statistics, mean_statistics
from ..validate import check_weight
from .formats import AnswerKey, Response
from .official import ALLOWANCE_PER_NUGGET, BETA_AFTER_2003, non_whitespace_length, score_question

_FIGURES = ("f", "recall", "precision")


class NuggetF(Metric):
    """Nugget F(beta) of a run against an answer key (vital recall, or pyramid recall for a pyramid key).

    ``score(matched, responses)`` takes the nugget ids matched per question and the run's responses
    (their length sets the precision); one row per question.

    Example:

        >>> from qascore.nuggets import AnswerKey, Run
        >>> from qascore.nuggets.formats import Nugget, Question
        >>> key = AnswerKey({"1": Question("1", "Hamlet", [Nugget("1", "1", "written by Shakespeare", "vital"),
        ...                                                Nugget("1", "2", "prince of Denmark", "okay")])})
        >>> run = Run("sys1")
        >>> _ = run.add("1", "doc1", "Shakespeare wrote the play")
        >>> NuggetF(key).corpus_score({"1": ["1"]}, run.responses)["f"]
        1.0

    :param key: the :class:`~qascore.nuggets.formats.AnswerKey`.
    :param beta: recall's weight in F (3 after 2003, 5 in 2003's "other" questions).
    :raises ValueError: for a key without questions or a negative beta.
    """

    name = "nugget-f"

    def __init__(self, key: AnswerKey, beta: float = BETA_AFTER_2003) -> None:
        if not key.questions:
            raise ValueError("the answer key holds no question")
        check_weight(beta, "beta")
        self.key = key
        self.beta = float(beta)

    def settings(self) -> dict[str, Any]:
        return {"beta": self.beta, "pyramid": self.key.pyramid, "allowance": ALLOWANCE_PER_NUGGET,
                "questions": len(self.key)}

    def score(self, matched: Mapping[str, Iterable[str]],
              responses: Mapping[str, list[Response]] | None = None) -> ExampleScores:
        """F, recall and precision of each key question named in ``matched`` or ``responses``."""
        for value, name in ((matched, "matched"), (responses, "responses")):
            if not isinstance(value, Mapping) and not (value is None and name == "responses"):
                raise TypeError(f"{name} must be a mapping qid -> {'nugget ids' if name == 'matched' else 'responses'}"
                                f", got {type(value).__name__}")
        responses = responses or {}
        named = set(matched) | set(responses)
        unknown = sorted(named - set(self.key.questions))
        if unknown:
            raise ValueError(f"questions not in the answer key: {', '.join(unknown)}")
        qids = [q.qid for q in self.key if q.qid in named]  # key order
        scores = [score_question(self.key[qid], matched.get(qid, ()),
                                 non_whitespace_length(r.text for r in responses.get(qid, ())),
                                 beta=self.beta, pyramid=self.key.pyramid) for qid in qids]
        columns = {name: np.array([getattr(s, name) for s in scores], dtype=np.float64) for name in _FIGURES}
        return ExampleScores(self.name, columns, self.signature(), ids=qids)

    def statistics(self, matched: Mapping[str, Iterable[str]],
                   responses: Mapping[str, list[Response]] | None = None) -> Statistics:
        scores = self.score(matched, responses)
        return mean_statistics(scores.columns, len(scores))

    def aggregate(self, statistics: Statistics) -> CorpusScore:
        if statistics.n > len(self.key):
            raise ValueError(f"{statistics.n} question scores for a key of {len(self.key)} questions: "
                             "a question was scored in more than one batch")
        values = {name: float(statistics.sums[name]) / len(self.key) for name in _FIGURES}
        return CorpusScore(self.name, values, len(self.key), self.signature())
