"""The paper's Table-5 protocol: system-wise agreement of AVA with gold labels over AS2 rankers.

Every candidate sentence of every question in an AS2 file (TREC-QA ``test-filtered.jsonl``) is
labelled once by the shipped AVA model (reference: the question's first other correct sentence;
a question's only correct sentence is judged against itself), then each ranker's
P@1 / MAP / MRR is computed twice: with the gold labels and with AVA's labels (the model's own
threshold, nothing tuned on this data). Agreement across rankers: RMSE and Kendall tau-b.

    python research/ava/table5.py ../shared/data/ava/trecqa/test-filtered.jsonl [--json]

A script over qascore's public API (not installed with the package); needs the ``onnx`` extra.
"""
from __future__ import annotations

import argparse
import math
from collections import Counter

import numpy as np

from qascore.ava import agreement, compute_features, load_default_model, ranking_metrics, read_as2
from qascore.io import dumps
from qascore.text import get_tokenizer

NOISE_SEED = 13


def load_as2(path):
    """Flat rows (group, question, sentence, label) of an AS2 file (:func:`read_as2` layouts),
    keeping the questions with at least one correct sentence (the "filtered" setting: AVA needs a
    reference), and how many questions were left out."""
    groups, questions, sentences, labels = [], [], [], []
    kept = [entry for entry in read_as2(path) if any(entry.labels)]
    for group, entry in enumerate(kept):
        groups += [group] * len(entry.sentences)
        questions += [entry.question] * len(entry.sentences)
        sentences += entry.sentences
        labels += entry.labels
    return np.asarray(groups), questions, sentences, np.asarray(labels)


def references_for(groups, sentences, labels) -> list:
    """Per row: the group's first correct sentence other than this row (itself if it is the only one)."""
    refs = []
    for i, g in enumerate(groups):
        correct = [sentences[j] for j in np.flatnonzero((groups == g) & (labels == 1)) if j != i]
        refs.append(correct[0] if correct else sentences[i])
    return refs


def bm25_scores(groups, questions, sentences, k1: float = 1.2, b: float = 0.75) -> np.ndarray:
    """Okapi BM25 of each sentence for its question; statistics over the question's candidate list."""
    tok = get_tokenizer("rouge")
    words = [tok.tokenize(s) for s in sentences]
    scores = np.zeros(len(sentences))
    for g in np.unique(groups):
        idx = np.flatnonzero(groups == g)
        df = Counter(w for i in idx for w in set(words[i]))
        avgdl = max(np.mean([len(words[i]) for i in idx]), 1e-9)
        query = tok.tokenize(questions[idx[0]])
        for i in idx:
            tf = Counter(words[i])
            scores[i] = sum(math.log(1 + (len(idx) - df[w] + 0.5) / (df[w] + 0.5)) * tf[w] * (k1 + 1)
                            / (tf[w] + k1 * (1 - b + b * len(words[i]) / avgdl)) for w in query if tf[w])
    return scores


def rankers(groups, questions, sentences, labels, ava_probs) -> dict:
    rng = np.random.default_rng(NOISE_SEED)
    overlap = compute_features(questions, sentences, sentences)[:, 3]  # sim-text(q, t)
    rankers = {
        "lexical overlap (sim-text q,t)": overlap,
        "BM25": bm25_scores(groups, questions, sentences),
        "length (longer first)": np.array([len(s) for s in sentences], dtype=float),
        "random": rng.random(len(labels)),
        "AVA score (uses the reference)": ava_probs,
    }
    try:
        from qascore.runtime.embedding import SentenceEncoder

        rankers["MiniLM embedding cosine(q, t)"] = SentenceEncoder(device="cpu").similarity(questions, sentences)
    except Exception as exc:  # the embedding model is an optional package
        print(f"MiniLM ranker skipped: {exc}")
    for rate in (0.2, 0.4):
        flipped = np.where(rng.random(len(labels)) < rate, 1 - labels, labels)
        rankers[f"gold labels, {int(rate * 100)} % flipped"] = flipped + 0.01 * rng.random(len(labels))
    return rankers


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("as2_file")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    groups, questions, sentences, labels = load_as2(args.as2_file)
    model = load_default_model(device="cpu", truncation="allow")
    probs = model.predict_proba(questions, references_for(groups, sentences, labels), sentences)
    ava_labels = (probs >= model.threshold).astype(int)
    rows = {}
    for name, scores in rankers(groups, questions, sentences, labels, probs).items():
        rows[name] = {
            "gold": ranking_metrics(scores, labels, groups),
            "ava": ranking_metrics(scores, ava_labels, groups),
        }
    report = {
        "file": args.as2_file,
        "candidates": len(labels),
        "ava_pointwise_accuracy": float(np.mean(ava_labels == labels)),
        "signature": model.signature(),
        "rankers": rows,
        "agreement": {},
    }
    for metric in ("P@1", "MAP", "MRR"):
        ag = agreement({n: r["ava"][metric] for n, r in rows.items()}, {n: r["gold"][metric] for n, r in rows.items()})
        report["agreement"][metric] = ag.as_dict()
    if args.json:
        print(dumps(report))
        return 0
    print(
        f"{len(labels)} candidates; AVA point-wise accuracy {report['ava_pointwise_accuracy']:.4f}; {model.signature()}"
    )
    print(
        "| ranker | P@1 gold | P@1 AVA | MAP gold | MAP AVA | MRR gold | MRR AVA |\n"
        "| --- | --- | --- | --- | --- | --- | --- |"
    )
    for name, r in rows.items():
        cells = " | ".join(f"{r['gold'][m]:.4f} | {r['ava'][m]:.4f}" for m in ("P@1", "MAP", "MRR"))
        print(f"| {name} | {cells} |")
    for metric, ag in report["agreement"].items():
        print(f"{metric}: RMSE {ag['rmse']:.4f}, Kendall tau-b {ag['kendall_tau']:.3f} (p={ag['kendall_p']:.3f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
