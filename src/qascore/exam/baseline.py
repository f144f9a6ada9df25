"""The paper's baseline: ROUGE-1 F1 of each system's article against the query's gold article.

Words are lowercased, stopwords removed and Porter stemmed (the paper lemmatises; no lemmatiser
ships here, so this is the stemmed variant) with :class:`~qascore.exam.analysis.LexicalAnalyzer`;
ROUGE-1 itself is :func:`qascore.lexical.rouge.rouge`. A system is scored on every query that has
a gold article; a query it skipped counts 0, as in EXAM.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..lexical.rouge import rouge
from ..signature import make_signature
from ..text import porter_stem
from .analysis import LexicalAnalyzer
from .model import Articles


class _PaperTokenizer:
    """rouge's tokenizer protocol over the EXAM analyser (lowercase, no stopwords, stemmed)."""

    def __init__(self):
        self._analyzer = LexicalAnalyzer(stem=porter_stem)

    def tokenize(self, text: str) -> list[str]:
        return self._analyzer.terms(text)


@dataclass
class RougeBaseline:
    scores: dict[str, float]  # system -> mean ROUGE-1 F1 over gold queries
    stderr: dict[str, float]
    per_query: dict[str, dict[str, float]]
    signature: str


def rouge1_baseline(articles: Articles, gold: Articles, *, n_jobs: int | None = None) -> RougeBaseline:
    if len(gold.systems) != 1:
        raise ValueError(f"gold articles must come as one system, got {len(gold.systems)}")
    gold_articles = gold.articles(gold.systems[0])
    queries = list(gold_articles)
    if not queries:
        raise ValueError("no gold articles")
    predictions, references, owners = [], [], []
    for system in articles.systems:
        per_query = articles.articles(system)
        for q in queries:
            if q in per_query:
                predictions.append("\n".join(per_query[q]))
                references.append("\n".join(gold_articles[q]))
                owners.append((system, q))
    f1 = rouge(predictions, references, ["rouge1"], tokenizer=_PaperTokenizer(), n_jobs=n_jobs)["rouge1"].fmeasure \
        if predictions else np.zeros(0)
    per = {s: {q: 0.0 for q in queries} for s in articles.systems}
    for (system, q), value in zip(owners, f1):
        per[system][q] = float(value)
    scores, stderr = {}, {}
    for system, values in per.items():
        x = np.fromiter(values.values(), dtype=np.float64)
        scores[system] = float(x.mean())
        stderr[system] = float(x.std(ddof=1) / np.sqrt(len(x))) if len(x) > 1 else 0.0
    signature = make_signature("exam-rouge1-baseline", terms="words-lower-nostop-porter", queries=len(queries))
    return RougeBaseline(scores, stderr, per, signature)
