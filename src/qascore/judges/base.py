"""The judge interface: is each candidate answer correct, given its question and acceptable references?

A judge scores triples ``(question, references, candidate)``: ``references[i]`` is a string or a
non-empty list of strings. ``predict_proba`` gives p(correct) per triple (float64), ``predict``
the 0/1 label at the judge's ``threshold``, ``judge`` both at once. Every judge scores each triple
independently of the others in its call, so any split of a corpus gives the same verdicts.
"""
from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..signature import make_signature


class Verdicts(NamedTuple):
    """A judge's output: ``proba`` p(correct) per triple (float64), ``labels`` (bool).

    Example:

        >>> from qascore.judges import ContainmentJudge
        >>> proba, labels = ContainmentJudge().judge(["capital of France?"], ["Paris"], ["It is Paris."])
        >>> proba.tolist(), labels.tolist()
        ([1.0], [True])
    """

    proba: np.ndarray
    labels: np.ndarray


class Judge:
    """Base of every judge: subclasses define ``predict_proba``, ``threshold``, ``settings()`` and ``name``.

    Every judge reads ``(questions, references, candidates)``: three lists of the same length,
    ``references[i]`` a string or a list of acceptable strings.

    Example:

        >>> from qascore.judges import ExactMatchJudge
        >>> judge = ExactMatchJudge()
        >>> judge.predict(["who wrote Hamlet?", "capital of France?"], [["Shakespeare", "W. Shakespeare"], "Paris"],
        ...               ["shakespeare", "Lyon"]).tolist()
        [1, 0]
        >>> judge.signature().split("|")[:3]
        ['qascore:exact-match', 'normalise:squad', 'refs:max']
    """

    name = "judge"
    threshold: Any  # float: p(correct) at or above it is judged correct

    def predict_proba(self, questions, references, candidates) -> np.ndarray:
        raise NotImplementedError

    def settings(self) -> dict:
        """Every setting that changes a probability or a label, as the signature lists them."""
        return {}

    def signature(self) -> str:
        """The judge's name and every setting that changes a verdict, as one string."""
        return make_signature(self.name, **self.settings())

    def judge(self, questions, references, candidates) -> Verdicts:
        """Probabilities and labels (probability >= ``threshold``) of every triple, in one call."""
        proba = np.asarray(self.predict_proba(questions, references, candidates), dtype=np.float64)
        return Verdicts(proba, proba >= float(self.threshold))

    def predict(self, questions, references, candidates) -> np.ndarray:
        """1 for each triple judged correct, else 0 (int64)."""
        return self.judge(questions, references, candidates).labels.astype(np.int64)

    def with_threads(self, n_threads: int | None) -> Judge:
        """This judge computing on ``n_threads`` threads (None: the library's default). A judge whose
        threads are fixed when it is built (an ONNX session) returns itself."""
        return self

    def cached(self, remember) -> Judge:
        """This judge with its verdicts remembered: ``remember(judge)`` wraps a judge in a cache
        (:class:`~qascore.judges.cache.CachedJudge`); a judge made of stages wraps its costly one."""
        return remember(self)

    def first_accepted(self, questions, references, candidate_lists) -> np.ndarray:
        """Per item, the index in ``candidate_lists[i]`` of the first candidate judged correct for
        (``questions[i]``, ``references[i]``), or -1 when none is: "does any of these answer it?",
        as EXAM asks of an article's paragraphs. Each distinct triple is judged once per call: first
        every list's leading candidate, then the rest of the lists whose lead was rejected. An
        item's answer does not depend on the other items of the call."""
        def triple(i: int, j: int) -> tuple:
            refs = references[i]
            return questions[i], refs if isinstance(refs, str) else tuple(refs), candidate_lists[i][j]

        verdicts: dict = {}

        def read(keys: list) -> None:
            todo = [k for k in dict.fromkeys(keys) if k not in verdicts]
            if todo:
                labels = self.judge([k[0] for k in todo], [k[1] if isinstance(k[1], str) else list(k[1]) for k in todo],
                                    [k[2] for k in todo]).labels
                verdicts.update(zip(todo, map(bool, labels)))

        items = [i for i, texts in enumerate(candidate_lists) if len(texts)]
        read([triple(i, 0) for i in items])
        read([triple(i, j) for i in items if not verdicts[triple(i, 0)] for j in range(1, len(candidate_lists[i]))])
        out = np.full(len(candidate_lists), -1, dtype=np.int64)
        for i in items:
            out[i] = next((j for j in range(len(candidate_lists[i])) if verdicts[triple(i, j)]), -1)
        return out
