"""Pourpre (Lin and Demner-Fushman 2005), the baseline, and the plain containment baseline.

Pourpre: the match score of a nugget is the best stemmed-unigram overlap of its description with any
response of the run (count or idf weighted, stopwords removed, as a share of the description's
weight). A score below the threshold counts 0. The question's F is the official formula with the
match scores in place of binary judgements: recall = sum of vital match scores / R, allowance
= 100 x (sum of all match scores). The run score is the macro mean over questions.

Containment: a response carries a nugget when it holds every distinct content term of the
description (unstemmed; count-weighted unigram recall of 1).
"""
from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Sequence

import numpy as np

from ..signature import make_signature
from ..validate import check_choice, check_real
from .terms import Analyzer, IdfTable
from .formats import AnswerKey, Run
from .ngram_index import NgramIndex, QuestionNuggets, score_texts
from .official import ALLOWANCE_PER_NUGGET, QuestionScore, RunScore, f_beta, length_precision, non_whitespace_length


@dataclass
class UnigramMatcher:
    """Unigram overlap of responses with nugget descriptions (no informativeness)."""

    key: AnswerKey
    analyzer: Analyzer
    weighting: str = "idf"
    idf: IdfTable | None = None

    def __post_init__(self):
        check_choice(self.weighting, ("idf", "count"), "weighting")
        self.index = NgramIndex(
            [
                QuestionNuggets(
                    q.qid, [n.nugget_id for n in q.nuggets], [[self.analyzer.terms(n.description)] for n in q.nuggets]
                )
                for q in self.key
            ],
            n_max=1,
            informativeness="none",
        )

    def response_scores(self, texts: Sequence[str], qids: Sequence[str], *, n_jobs: int | None = None):
        """(out_offsets, recall, entry_nugget): per response, the overlap with each nugget of its question."""
        question = np.fromiter((self.index.question_index[q] for q in qids), dtype=np.int32, count=len(qids))
        out_offsets, recall, _, entry_nugget, _ = score_texts(
            self.index, self.analyzer, texts, question, weighting=self.weighting, idf=self.idf, n_jobs=n_jobs
        )
        return out_offsets, recall, entry_nugget


class Pourpre(UnigramMatcher):
    """Pourpre (Lin and Demner-Fushman 2005): a response carries a nugget by its idf-weighted unigram
    overlap with the description; ``score(runs, beta=...)`` gives each run's official F with the
    nuggets' recall as their credit.

    Example:

        >>> from qascore.nuggets import AnswerKey, Run
        >>> from qascore.nuggets.formats import Nugget, Question
        >>> key = AnswerKey({"1": Question("1", "Hamlet", [Nugget("1", "1", "written by Shakespeare", "vital"),
        ...                                                Nugget("1", "2", "prince of Denmark", "okay")])})
        >>> run = Run("sys1")
        >>> _ = run.add("1", "doc1", "Shakespeare wrote the play")
        >>> [score] = Pourpre(key).score([run], beta=3)
        >>> round(score.mean, 4)
        0.1862

    :param key: the :class:`~qascore.nuggets.formats.AnswerKey`.
    :param weighting: ``idf`` or ``count``.
    :param stem: Porter-stem the terms.
    :param stopwords: remove stopwords.
    :param idf: an :class:`~qascore.nuggets.terms.IdfTable`, or None for the responses scored.
    """

    def __init__(
        self,
        key: AnswerKey,
        *,
        weighting: str = "idf",
        stem: bool = True,
        stopwords: bool = True,
        idf: IdfTable | None = None,
        threshold: float = 0.0,
    ):
        super().__init__(key, Analyzer(stem=stem, stopwords=stopwords), weighting, idf)
        self.threshold = check_real(threshold, "threshold", low=0.0, high=1.0)

    def signature(self) -> str:
        return make_signature(
            "pourpre",
            stem=self.analyzer.stem,
            stopwords=self.analyzer.stopwords,
            weighting=self.weighting,
            threshold=self.threshold,
            average="macro",
        )

    def score(self, runs: Sequence[Run], *, beta: float, n_jobs: int | None = None) -> list[RunScore]:
        items = [
            (run_i, r)
            for run_i, run in enumerate(runs)
            for qid, rs in run.responses.items()
            if qid in self.index.question_index
            for r in rs
        ]
        out_offsets, recall, _ = self.response_scores(
            [r.text for _, r in items], [r.qid for _, r in items], n_jobs=n_jobs
        )
        best: dict[tuple[int, str], np.ndarray] = {}
        for i, (run_i, r) in enumerate(items):
            row = recall[out_offsets[i] : out_offsets[i + 1]]
            prev = best.get((run_i, r.qid))
            best[run_i, r.qid] = row.copy() if prev is None else np.maximum(prev, row)
        results = []
        for run_i, run in enumerate(runs):
            per_question = {}
            for q in self.key:
                match = best.get((run_i, q.qid), np.zeros(len(q.nuggets)))
                match = np.where(match >= self.threshold, match, 0.0)
                vital = np.array([n.is_vital for n in q.nuggets], dtype=bool)
                n_vital = int(vital.sum())
                recall_q = float(match[vital].sum()) / n_vital if n_vital else 0.0
                allowance = ALLOWANCE_PER_NUGGET * float(match.sum())
                length = non_whitespace_length(r.text for r in run.responses.get(q.qid, ()))
                precision = length_precision(length, allowance)
                per_question[q.qid] = QuestionScore(
                    q.qid,
                    recall_q,
                    precision,
                    f_beta(recall_q, precision, beta),
                    length,
                    allowance,
                    int((match[vital] > 0).sum()),
                    int((match[~vital] > 0).sum()),
                    n_vital,
                )
            mean = sum(s.f for s in per_question.values()) / len(per_question) if per_question else 0.0
            unknown = sorted(set(run.responses) - set(self.index.question_index))
            results.append(RunScore(run.tag, per_question, mean, f"{self.signature()}|beta:{beta}", unknown))
        return results


class Containment(UnigramMatcher):
    """A response carries a nugget when it holds all the description's distinct content terms."""

    def __init__(self, key: AnswerKey, *, stopwords: bool = True):
        super().__init__(key, Analyzer(stem=False, stopwords=stopwords), "count", None)

    def carries(self, texts: Sequence[str], qids: Sequence[str], *, n_jobs: int | None = None):
        out_offsets, recall, entry_nugget = self.response_scores(texts, qids, n_jobs=n_jobs)
        return out_offsets, recall >= 1.0, entry_nugget
