"""Does a run's Nuggeteer score depend on the runs scored with it? The idf table of docs/nuggets.md.

For each idf source (``"runs"``: document frequencies over the responses scored in one call;
``"background"``: the shipped wordfreq table) every run is scored alone and together with the
others, and the two means are compared:

* the demo data (RUN-C unjudged, RUN-A and RUN-B judged), in the setting of issue #23
  (descriptions only, unigrams, threshold 0.5) and in ``qascore demo``'s (judgements, bigrams, 0.2);
* TREC 2024 RAG (two runs x 301 topics, ``../shared/data/nuggets/rag24``): each answer split into
  sentences (the responses, as in ``study.py``), description-only Nuggeteer (bigrams, threshold 0.2)
  with the run's own nuggets, alone and together with the other run's sentences. Against the LLM's
  labels: the mean over topics of the share of vital nuggets assigned (predicted) and labelled
  ``support`` (labelled), and Kendall tau-b of the per-topic values.

Usage: ``PYTHONPATH=src python research/nuggets/idf_effect.py [--rag24 DIR]``; prints markdown tables.
"""
from __future__ import annotations

import argparse
import sys
from importlib import resources
from pathlib import Path

import numpy as np

from qascore.nuggets.formats import read_answer_key, read_judgements, read_rag_assignments, read_runs
from qascore.nuggets.nuggeteer import Nuggeteer
from qascore.stats import kendalltau

sys.path.insert(0, str(Path(__file__).resolve().parent))
from study import labels, rag_answer_key, sentence_run  # noqa: E402

IDF = ("runs", "background")
RAG_DEFAULT = Path(__file__).resolve().parents[3] / "shared" / "data" / "nuggets" / "rag24"


def alone_and_together(model: Nuggeteer, runs, beta: float = 3.0) -> tuple[dict, dict]:
    together = {s.run_tag: s for s in model.score(runs, beta=beta)}
    alone = {r.tag: model.score([r], beta=beta)[0] for r in runs}
    return alone, together


def demo_table() -> str:
    base = resources.files("qascore") / "demo_data" / "nuggets"
    key = read_answer_key(base / "answer_key.txt")
    judged = read_judgements(base / "judgements.txt")
    runs = list(read_runs(base / "run.txt").values()) + list(judged.runs.values())
    settings = {"descriptions, unigrams, threshold 0.5": dict(n=1, threshold=0.5),
                "judgements, bigrams, threshold 0.2": dict(judgements=judged, threshold=0.2)}
    lines = ["| setting | idf | run | F alone | F with the other two |", "|---|---|---|---|---|"]
    for name, options in settings.items():
        for idf in IDF:
            alone, together = alone_and_together(Nuggeteer(key, idf=idf, **options), runs)
            for tag in alone:
                lines.append(f"| {name} | {idf} | {tag} | {alone[tag].mean:.4f} | {together[tag].mean:.4f} |")
    return "\n".join(lines)


def _vital_share(model: Nuggeteer, run, key) -> np.ndarray:
    """Per topic: the share of its vital nuggets that some sentence of ``run`` gets (run alone)."""
    matched = model.assign([run])[0].matched()
    shares = []
    for q in key:
        vital = {n.nugget_id for n in q.nuggets if n.is_vital}
        shares.append(len(vital & set(matched.get(q.qid, ()))) / len(vital) if vital else 0.0)
    return np.array(shares)


def rag_table(directory: Path) -> str:
    files = {"gpt4o": "assignments.baseline_rag24.test_gpt4o_top20.jsonl",
             "command-r": "assignments.baseline_rag24.test_command-r-plus_top20.jsonl"}
    topics = {name: read_rag_assignments(directory / f) for name, f in files.items()}
    keys = {name: rag_answer_key(t) for name, t in topics.items()}
    runs = {name: sentence_run(t, name) for name, t in topics.items()}
    lines = ["| idf | run | F alone | F with the other run | topics whose F changes | predicted vital share "
             "| labelled vital share | tau-b per topic |", "|---|---|---|---|---|---|---|---|"]
    for idf in IDF:
        for name, key in keys.items():
            model = Nuggeteer(key, n=2, threshold=0.2, idf=idf)
            other = next(r for n, r in runs.items() if n != name)
            together = model.score([runs[name], other], beta=3)[0]
            alone = model.score([runs[name]], beta=3)[0]
            changed = sum(alone.questions[q].f != together.questions[q].f for q in alone.questions)
            predicted = _vital_share(model, runs[name], key)
            gold = labels(topics[name])
            labelled = np.array([
                len(gold[q.qid] & {n.nugget_id for n in q.nuggets if n.is_vital})
                / max(1, sum(n.is_vital for n in q.nuggets)) for q in key])
            tau = kendalltau(predicted, labelled).statistic
            lines.append(f"| {idf} | {name} | {alone.mean:.4f} | {together.mean:.4f} | {changed} of {len(key)} "
                         f"| {predicted.mean():.4f} | {labelled.mean():.4f} | {tau:.3f} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rag24", type=Path, default=RAG_DEFAULT, help="folder of the TREC 2024 RAG assignments")
    args = parser.parse_args(argv)
    print(demo_table())
    print()
    print(rag_table(args.rag24))
    return 0


if __name__ == "__main__":
    sys.exit(main())
