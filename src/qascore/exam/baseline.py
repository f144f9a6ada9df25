"""The paper's baseline: ROUGE-1 F1 of each system's article against the query's gold article.

Words are lowercased, stopwords removed and Porter stemmed (the paper lemmatises; no lemmatiser
ships here, so this is the stemmed variant) with :class:`~qascore.exam.terms.LexicalAnalyzer`.
ROUGE-1 is rouge-score's: overlap = sum over terms of min(count in article, count in gold),
P = overlap / max(article terms, 1), R = overlap / max(gold terms, 1), F1 = 2PR / (P + R) (0 when
both are 0); the counts come from the shared clipped n-gram kernel and P / R / F from
:mod:`qascore.prf`, so values equal ``rouge_score``'s ``rouge1`` with the same tokenizer to the last bit.
A system is scored on every query that has a gold article; a query it skipped counts 0, as in EXAM.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._kernels.ngram import clipped_ngram_matches
from .._parallel import threads_for
from ..prf import prf_of_counts
from ..signature import make_signature
from ..text import Vocabulary, porter_stem
from .terms import LexicalAnalyzer
from .records import Articles


@dataclass
class RougeBaseline:
    scores: dict[str, float]  # system -> mean ROUGE-1 F1 over gold queries
    stderr: dict[str, float]
    per_query: dict[str, dict[str, float]]
    signature: str


def rouge1_f1(predictions: list[str], references: list[str], analyzer: LexicalAnalyzer,
              n_jobs: int | None = None) -> np.ndarray:
    """ROUGE-1 F1 of each prediction against its reference over the analyser's terms."""
    k = len(predictions)
    if k == 0:
        return np.zeros(0)
    packed = analyzer.encode_batch([*predictions, *references], Vocabulary())
    rows = np.arange(2 * k, dtype=np.int64)
    matches = clipped_ngram_matches(packed.ids, packed.offsets, rows[:k], packed.ids, packed.offsets, rows[k:],
                                    np.arange(k + 1, dtype=np.int64), 1, threads_for(k, n_jobs))[:, 0]
    lengths = packed.lengths()
    return prf_of_counts(matches, lengths[:k], lengths[k:])[2]


def rouge1_baseline(articles: Articles, gold: Articles, *, n_jobs: int | None = None) -> RougeBaseline:
    """Mean ROUGE-1 F1 (with standard error) of every system's articles against the gold articles."""
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
    f1 = rouge1_f1(predictions, references, LexicalAnalyzer(stem=porter_stem), n_jobs)
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
