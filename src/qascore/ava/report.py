"""The evaluation report of a model on labelled triples: point-wise figures and the system-wise
table, as a JSON-ready dict and as text (what ``qascore ava eval`` and the demo print)."""
from __future__ import annotations

import numpy as np

from .data import Triples
from ..validate import check_real
from .evaluate import pointwise, systemwise_accuracy


def stage_table(stages: np.ndarray, labels: np.ndarray, predicted: np.ndarray, names) -> list[dict]:
    """Per stage of a staged judge: how many triples it decided, their share, and how often its
    decisions agree with the human labels (for an accepting stage, its precision)."""
    rows = []
    for k, name in enumerate(names):
        mask = np.asarray(stages) == k
        n = int(mask.sum())
        agree = float(np.mean(predicted[mask] == labels[mask])) if n else float("nan")
        rows.append({"stage": name, "n": n, "share": n / max(len(stages), 1), "agreement": agree})
    return rows


def evaluate_triples(model, triples: Triples, threshold: float | None = None, *, probabilities=None,
                     stages=None) -> dict:
    """Point-wise metrics at the model's (or the given) threshold, and, when the triples come
    from more than one system, the system-wise table.

    ``model`` is any AVA model (``predict_proba``, ``threshold``, ``signature``); ``triples``
    need labels; ``probabilities``, when given, are the model's ``predict_proba`` of them,
    computed already; ``stages``, the stage that decided each triple (a staged judge's
    ``judge_stages``), adds the per-stage table. Kendall's tau of two systems with tied accuracies
    is NaN (``null`` in JSON).

    Example:

        >>> import numpy as np
        >>> from qascore.ava import Triples, default_linear_model
        >>> triples = Triples(["capital of France?"] * 2, [["Paris"], ["Paris"]], ["Paris", "Lyon"],
        ...                   labels=np.array([1, 0]), systems=["a", "b"])
        >>> report = evaluate_triples(default_linear_model(), triples)
        >>> report["pointwise"]["accuracy"], report["systemwise"]["estimated"]
        (1.0, {'a': 1.0, 'b': 0.0})

    :param model: an AVA model or judge.
    :param triples: labelled :class:`~qascore.ava.data.Triples`.
    :param threshold: the threshold in [0, 1] (default: the model's).
    :param probabilities: the model's probabilities of these triples, when computed already.
    :param stages: the stage that decided each triple, for the per-stage table.
    :returns: a JSON-ready dict (``pointwise``, ``threshold``, ``signature``, and ``systemwise``
        and ``stages`` where they apply).
    :raises ValueError: for triples without labels or a threshold outside [0, 1].
    """
    if triples.labels is None:
        raise ValueError("evaluation needs labelled triples")
    if threshold is not None:
        check_real(threshold, "threshold", low=0.0, high=1.0)
    probs = model.predict_proba(triples.questions, triples.references, triples.candidates) \
        if probabilities is None else np.asarray(probabilities)
    th = model.threshold if threshold is None else threshold
    point = pointwise(triples.labels, (probs >= th).astype(np.int64))
    report = {"pointwise": point.as_dict(), "threshold": th, "signature": model.signature()}
    if stages is not None:
        from ..judges.cascade import STAGES

        report["stages"] = stage_table(stages, triples.labels, (probs >= th).astype(np.int64), STAGES)
    if triples.systems is not None and len(set(triples.systems)) > 1:
        report["systemwise"] = systemwise_accuracy(probs, triples.labels, triples.systems, th,
                                                   model_signature=model.signature()).as_dict()
    return report


def format_report(report: dict) -> str:
    """The report of :func:`evaluate_triples` as a few lines of text.

    Example:

        >>> import numpy as np
        >>> from qascore.ava import Triples, default_linear_model
        >>> triples = Triples(["capital of France?"] * 2, [["Paris"], ["Paris"]], ["Paris", "Lyon"],
        ...                   labels=np.array([1, 0]))
        >>> print(format_report(evaluate_triples(default_linear_model(), triples)).splitlines()[0])
        point-wise (threshold 0.36, n=2): precision 1.0000  recall 1.0000  F1 1.0000  accuracy 1.0000

    :param report: a report of :func:`evaluate_triples`.
    :returns: the text, lines joined by newlines.
    """
    p = report["pointwise"]
    lines = [f"point-wise (threshold {report['threshold']:.2f}, n={p['n']}): precision {p['precision']:.4f}  "
             f"recall {p['recall']:.4f}  F1 {p['f1']:.4f}  accuracy {p['accuracy']:.4f}"]
    for row in report.get("stages", []):
        lines.append(f"stage {row['stage']:<14} {row['n']:>7} triples ({row['share']:6.1%})  "
                     f"agreement with humans {row['agreement']:.4f}")
    sw = report.get("systemwise")
    if sw:
        lines.append(f"{'system':<12}{'gold acc':>10}{'AVA acc':>10}{'error':>9}")
        for s, g in sw["gold"].items():
            e = sw["estimated"][s]
            lines.append(f"{s:<12}{g:>10.4f}{e:>10.4f}{e - g:>+9.4f}")
        a = sw["agreement"]
        lines.append(f"RMSE {a['rmse']:.4f} ± {a['std']:.4f}   "
                     f"Kendall tau-b {a['kendall_tau']:.3f} (p={a['kendall_p']:.3f})")
    lines.append(report["signature"])
    return "\n".join(lines)
