"""Nugget assignment by a judge (:mod:`qascore.judges`) instead of an LLM or n-gram classifiers.

Each nugget of a topic is a reference; each sentence of the topic's answer is a candidate, with the
topic's query as the question. A nugget is ``support`` when the judge accepts at least one sentence,
else ``not_support``; the judge's best probability over the sentences is kept. All triples of all
topics go to the judge in one call.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..judges.base import Judge
from ..text.sentences import split_sentences
from .formats import RagNugget, RagTopic


def judge_assignments(topics: list[RagTopic], judge: Judge) -> tuple[list[RagTopic], list[np.ndarray]]:
    """The topics with every nugget's assignment given by ``judge``, and per topic the best
    probability of each nugget (0 when the answer has no sentence)."""
    questions, references, candidates, owner = [], [], [], []
    starts = np.cumsum([0] + [len(t.nuggets) for t in topics])
    for topic, start in zip(topics, starts):
        sentences = split_sentences(topic.answer_text)
        for i, nugget in enumerate(topic.nuggets):
            questions += [topic.query] * len(sentences)
            references += [nugget.text] * len(sentences)
            candidates += sentences
            owner += [start + i] * len(sentences)
    best = np.zeros(starts[-1])
    accepted = np.zeros(starts[-1], dtype=bool)
    if candidates:
        verdicts = judge.judge(questions, references, candidates)
        index = np.asarray(owner, dtype=np.int64)
        np.maximum.at(best, index, verdicts.proba)
        np.logical_or.at(accepted, index, verdicts.labels)
    out = [replace(topic, nuggets=tuple(RagNugget(n.text, n.importance,
                                                  "support" if accepted[start + i] else "not_support")
                                        for i, n in enumerate(topic.nuggets)))
           for topic, start in zip(topics, starts)]
    return out, [best[start:start + len(t.nuggets)] for t, start in zip(topics, starts)]
