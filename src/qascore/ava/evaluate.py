"""Point-wise and system-wise evaluation of AVA against human labels.

Point-wise: precision, recall, F1 (of the 'correct' class) and accuracy.
System-wise (the paper's protocol): each system's accuracy, or P@1 / MAP / MRR of its ranked
candidate lists, measured with the gold labels and with AVA's predicted labels; questions whose
gold labels are all 0 or all 1 are skipped for ranked metrics (as TANDA does). The decision
threshold is tuned on a dev set to minimise the RMSE between AVA's and the gold system scores.
Agreement: RMSE with the standard deviation of the per-system absolute errors, and Kendall
tau-b with its p-value between the two rankings of systems.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..prf import f_score
from ..signature import make_signature
from ..judges.matching import ContainmentJudge, ExactMatchJudge, TokenF1Judge
from ..validate import as_real_array, check_real

THRESHOLD_GRID = np.round(np.arange(0.01, 1.0, 0.01), 2)


@dataclass
class PointwiseResult:
    precision: float
    recall: float
    f1: float
    accuracy: float
    n: int

    def as_dict(self) -> dict:
        return dict(precision=self.precision, recall=self.recall, f1=self.f1, accuracy=self.accuracy, n=self.n)


def pointwise(labels, predictions) -> PointwiseResult:
    """P/R/F1 of the positive ('correct') class and accuracy; an empty class gives 0, not NaN.

    Example:

        >>> pointwise([1, 0, 1, 1], [1, 0, 0, 1])
        PointwiseResult(precision=1.0, recall=0.6666666666666666, f1=0.8, accuracy=0.75, n=4)

    :param labels: the human 0/1 labels.
    :param predictions: the predicted 0/1 labels, one per label.
    :returns: a ``PointwiseResult`` (precision, recall, f1, accuracy, n).
    :raises ValueError: for values other than 0/1, different lengths, or no items.
    """
    y = _binary(labels, "labels")
    p = _binary(predictions, "predictions")
    if y.shape != p.shape:
        raise ValueError(f"labels and predictions differ in shape: {y.shape} vs {p.shape}")
    if len(y) == 0:
        raise ValueError("point-wise evaluation of zero items is undefined")
    tp = int(np.sum((p == 1) & (y == 1)))
    precision = tp / max(int(p.sum()), 1) if p.sum() else 0.0
    recall = tp / int(y.sum()) if y.sum() else 0.0
    f1 = f_score(precision, recall)
    return PointwiseResult(precision, recall, f1, float(np.mean(p == y)), len(y))


def _binary(values, name: str) -> np.ndarray:
    """0/1 labels (bools too) as int64; anything else names the index."""
    return as_real_array(values, name, low=0, high=1, integer=True).astype(np.int64)


def _checked_sample(probabilities, labels, groups, group_name: str, *, probability: bool = True):
    """Probabilities (or any scores) without NaN, 0/1 labels and one group id per item, of one length."""
    values = as_real_array(probabilities, "probabilities" if probability else "scores",
                           low=0.0 if probability else None, high=1.0 if probability else None)
    labels = _binary(labels, "labels")
    if isinstance(groups, (str, bytes)):
        raise TypeError(f"{group_name} must be a sequence of ids, not a single {type(groups).__name__}")
    groups = list(groups)
    if not len(values) == len(labels) == len(groups):
        raise ValueError(f"{'probabilities' if probability else 'scores'}, labels and {group_name} differ in "
                         f"length ({len(values)}, {len(labels)}, {len(groups)})")
    return values, labels, groups


def system_accuracies(values, systems) -> dict:
    """Mean of ``values`` (0/1 labels or predictions) per system, systems in first-seen order."""
    values = np.asarray(values, dtype=np.float64)
    order = list(dict.fromkeys(systems))
    systems = np.asarray(systems)
    return {s: float(values[systems == s].mean()) for s in order}


def ranking_metrics(scores, labels, groups) -> dict:
    """P@1, MAP and MRR of candidate lists ranked by ``scores`` (descending, stable), one list per
    group id; lists whose ``labels`` are all 0 or all 1 are skipped. ``labels`` are the relevance
    used to score the ranking (gold labels, or AVA's predicted labels).

    Example:

        >>> ranking_metrics([0.9, 0.2, 0.4, 0.8], [1, 0, 1, 0], ["q1", "q1", "q2", "q2"])
        {'P@1': 0.5, 'MAP': 0.75, 'MRR': 0.75, 'questions': 2}

    :param scores: the ranking score of each candidate (higher first).
    :param labels: the 0/1 relevance of each candidate.
    :param groups: the question (list) each candidate belongs to.
    :returns: a dict of ``P@1``, ``MAP``, ``MRR`` and ``questions`` (the lists scored).
    :raises ValueError: for inputs of different lengths or labels other than 0/1.
    """
    scores, labels, group_list = _checked_sample(scores, labels, groups, "groups", probability=False)
    groups = np.asarray(group_list)
    p1, ap, rr = [], [], []
    for g in dict.fromkeys(groups.tolist()):
        idx = np.flatnonzero(groups == g)
        rel = labels[idx][np.argsort(-scores[idx], kind="stable")]
        if rel.sum() == 0 or rel.sum() == len(rel):
            continue
        hits = np.flatnonzero(rel == 1)
        p1.append(float(rel[0]))
        ap.append(float(np.mean(np.arange(1, len(hits) + 1) / (hits + 1))))
        rr.append(1.0 / (hits[0] + 1))
    if not p1:
        raise ValueError("every candidate list has all-0 or all-1 labels: ranking metrics are undefined")
    return {"P@1": float(np.mean(p1)), "MAP": float(np.mean(ap)), "MRR": float(np.mean(rr)), "questions": len(p1)}


@dataclass
class Agreement:
    rmse: float
    std: float
    kendall_tau: float
    kendall_p: float
    n_systems: int

    def as_dict(self) -> dict:
        return dict(rmse=self.rmse, std=self.std, kendall_tau=self.kendall_tau, kendall_p=self.kendall_p,
                    n_systems=self.n_systems)


def agreement(estimated: dict, gold: dict) -> Agreement:
    """RMSE (and std of the absolute errors) and Kendall tau-b between AVA's and the gold scores.

    Example:

        >>> result = agreement({"a": 0.6, "b": 0.4, "c": 0.7}, {"a": 0.5, "b": 0.4, "c": 0.8})
        >>> round(result.rmse, 4), result.kendall_tau, result.n_systems
        (0.0816, 1.0, 3)

    :param estimated: system -> estimated score (every system of ``gold``).
    :param gold: system -> gold score.
    :returns: an ``Agreement`` (rmse, std, kendall_tau, kendall_p, n_systems); tau is NaN for one system.
    :raises KeyError: for a system of ``gold`` missing from ``estimated``.
    """
    systems = list(gold)
    a = np.array([estimated[s] for s in systems])
    h = np.array([gold[s] for s in systems])
    err = np.abs(a - h)
    from ..stats import kendalltau  # here, not at the top: qascore.stats brings Numba and SciPy

    tau = kendalltau(a, h, variant="b") if len(systems) > 1 else None
    return Agreement(float(np.sqrt(np.mean(err ** 2))), float(err.std()),
                     float("nan") if tau is None else float(tau.statistic),
                     float("nan") if tau is None else float(tau.pvalue), len(systems))


def tune_threshold(probabilities, labels, systems) -> float:
    """The threshold (grid 0.01..0.99) minimising RMSE between estimated and gold system
    accuracies; ties go to the threshold closest to 0.5.

    Example:

        >>> tune_threshold([0.9, 0.2, 0.6, 0.4], [1, 0, 1, 0], ["a", "a", "b", "b"])
        0.5

    :param probabilities: p(correct) per triple.
    :param labels: the human 0/1 label per triple.
    :param systems: the system of each triple.
    :returns: the threshold.
    :raises ValueError: for inputs of different lengths, probabilities outside [0, 1] or labels other than 0/1.
    """
    probabilities, labels, systems = _checked_sample(probabilities, labels, systems, "systems")
    gold = system_accuracies(labels, systems)
    best, best_key = 0.5, None
    for th in THRESHOLD_GRID:
        est = system_accuracies(np.asarray(probabilities) >= th, systems)
        key = (round(agreement(est, gold).rmse, 12), abs(th - 0.5))
        if best_key is None or key < best_key:
            best, best_key = float(th), key
    return best


@dataclass
class SystemwiseReport:
    gold: dict
    estimated: dict
    agreement: Agreement
    threshold: float
    signature: str

    def as_dict(self) -> dict:
        return dict(gold=self.gold, estimated=self.estimated, agreement=self.agreement.as_dict(),
                    threshold=self.threshold, signature=self.signature)


def systemwise_accuracy(
    probabilities, labels, systems, threshold: float, *, model_signature: str = ""
) -> SystemwiseReport:
    """Each system's accuracy estimated by AVA (share of its triples at or above ``threshold``)
    beside its gold accuracy (share labelled correct), and their agreement.

    Example:

        >>> report = systemwise_accuracy([0.9, 0.2, 0.6, 0.7], [1, 0, 1, 1], ["a", "a", "b", "b"], 0.5)
        >>> report.gold, report.estimated, report.agreement.rmse
        ({'a': 0.5, 'b': 1.0}, {'a': 0.5, 'b': 1.0}, 0.0)

    :param probabilities: p(correct) per triple.
    :param labels: the human 0/1 label per triple.
    :param systems: the system of each triple.
    :param threshold: the threshold in [0, 1].
    :param model_signature: the model's signature, recorded in the report's.
    :returns: a ``SystemwiseReport`` (gold, estimated, agreement, threshold, signature).
    :raises ValueError: for inputs of different lengths or a threshold outside [0, 1].
    """
    probabilities, labels, systems = _checked_sample(probabilities, labels, systems, "systems")
    check_real(threshold, "threshold", low=0.0, high=1.0)
    gold = system_accuracies(labels, systems)
    estimated = system_accuracies(probabilities >= threshold, systems)
    sig = make_signature(
        "ava-systemwise", measure="accuracy", threshold=f"{threshold:.2f}", model=model_signature or "-"
    )
    return SystemwiseReport(gold, estimated, agreement(estimated, gold), threshold, sig)


# --- baselines (SQuAD-style normalisation) --------------------------------------------------

BASELINES = {"exact_match": ExactMatchJudge, "token_f1": TokenF1Judge, "containment": ContainmentJudge}


def baseline_predictions(name: str, candidates, gold_alternatives) -> np.ndarray:
    """0/1 per row: 'exact_match' (candidate equals a gold alternative), 'token_f1' (SQuAD
    token F1 >= 0.5 with some alternative), 'containment' (a gold alternative occurs in the
    candidate), all after SQuAD normalisation: the string-matching judges of :mod:`qascore.judges`."""
    if name not in BASELINES:
        raise ValueError(f"unknown baseline {name!r}; expected one of {sorted(BASELINES)}")
    candidates = list(candidates)
    return BASELINES[name]().predict([""] * len(candidates), [list(g) for g in gold_alternatives], candidates)
