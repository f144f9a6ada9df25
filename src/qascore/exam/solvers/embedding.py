"""Embedding solver: cosine of "question + choice" with the article's best sentence (all-MiniLM-L6-v2).

Every distinct sentence of the batch (all systems' articles pooled) is encoded once and reused for
every question of every article containing it; each distinct question + choice text is encoded once.
"""
from __future__ import annotations

import numpy as np

from ...validate import check_real
from .base import SentenceCorpus, Solver, SolverAnswer, pick_with_margin


def _unique_rows(texts: list[str]) -> tuple[list[str], np.ndarray]:
    index: dict[str, int] = {}
    rows = np.fromiter((index.setdefault(t, len(index)) for t in texts), dtype=np.int64, count=len(texts))
    return list(index), rows


class EmbeddingSolver(Solver):
    """A choice scores the highest cosine between "question choice" and any article sentence; the best
    choice is answered when it beats the runner-up by more than ``margin`` (and its cosine exceeds
    ``min_similarity``). ``encoder`` is any object with ``encode(texts) -> unit vectors`` (default:
    :class:`qascore.runtime.SentenceEncoder`, all-MiniLM-L6-v2 on ONNX Runtime)."""

    name = "embedding"

    def __init__(self, encoder=None, *, margin: float = 0.0, min_similarity: float = 0.0):
        check_real(margin, "margin", low=0.0)
        if encoder is None:
            from ...runtime import SentenceEncoder

            encoder = SentenceEncoder()
        self.encoder = encoder
        self.margin = float(margin)
        self.min_similarity = float(min_similarity)

    def settings(self) -> dict:
        model = getattr(self.encoder, "model_path", type(self.encoder).__name__)
        return {"solver": self.name, "model": getattr(model, "name", str(model)), "margin": self.margin,
                "min_similarity": self.min_similarity}

    def _encode(self, texts: list[str]) -> np.ndarray:
        unique, rows = _unique_rows(texts)
        vectors = self.encoder.encode(unique) if unique else np.zeros((0, 1), dtype=np.float32)
        return vectors[rows] if len(rows) else vectors

    def solve(self, articles, questions):
        if len(articles) != len(questions):
            raise ValueError(f"{len(articles)} articles but {len(questions)} question lists")
        corpus = SentenceCorpus(articles)
        sentence_vectors = self._encode(corpus.sentences)
        flat = [q for qs in questions for q in qs]
        probe_texts, probe_off = [], [0]  # free text: the question; multiple choice: question + each choice
        for q in flat:
            probe_texts.extend([f"{q.text} {c}" for c in q.choices.values()] if q.is_multiple_choice else [q.text])
            probe_off.append(len(probe_texts))
        probe_vectors = self._encode(probe_texts)
        answers = []
        t = 0
        for a, qs in enumerate(questions):
            sent_ids = corpus.article_sentence_ids(a)
            lo, hi = probe_off[t], probe_off[t + len(qs)]
            if len(sent_ids) == 0 or hi == lo:
                answers.append([SolverAnswer(None, 0.0) for _ in qs])
                t += len(qs)
                continue
            sims = sentence_vectors[sent_ids] @ probe_vectors[lo:hi].T  # sentences x probes
            best_sim = sims.max(axis=0)
            row = []
            for q in qs:
                cols = slice(probe_off[t] - lo, probe_off[t + 1] - lo)
                if q.is_multiple_choice:
                    k, gap = pick_with_margin(best_sim[cols].astype(np.float64), self.margin, self.min_similarity)
                    row.append(SolverAnswer(list(q.choices)[k] if k >= 0 else None, gap))
                else:
                    col = cols.start
                    s = int(np.argmax(sims[:, col]))
                    ok = sims[s, col] > self.min_similarity
                    row.append(SolverAnswer(None, float(sims[s, col]), corpus.sentences[sent_ids[s]] if ok else None))
                t += 1
            answers.append(row)
        return answers
