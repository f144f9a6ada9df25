"""A calibrated stacker over the transformer's logit and the four linear features.

p = sigmoid(w0 * logit + w1 * is-included + w2 * sim(r, t) + w3 * sim(r, q) + w4 * sim(q, t) + b),
fitted by cross-validated logistic regression on a calibration split the transformer never saw
(never on dev). The lexical features catch what the pooled encoder misses (exact containment of
the reference, answers that merely repeat the question).
"""
from __future__ import annotations

import warnings
from dataclasses import asdict, dataclass, field

import numpy as np

STACK_INPUTS = ("logit", "is_included", "sim_ref_cand", "sim_ref_question", "sim_question_cand")
# C grid for the 5-fold cross-validation (log loss) on the calibration split
C_GRID = tuple(float(c) for c in np.logspace(-2, 2, 9))


def stack_inputs(logits: np.ndarray, features: np.ndarray) -> np.ndarray:
    logits = np.asarray(logits, dtype=np.float64).reshape(-1, 1)
    features = np.asarray(features, dtype=np.float64)
    if features.shape != (len(logits), len(STACK_INPUTS) - 1):
        raise ValueError(f"features must be ({len(logits)}, {len(STACK_INPUTS) - 1}), got {features.shape}")
    return np.hstack([logits, features])


@dataclass
class Stacker:
    weights: list
    bias: float
    inputs: tuple = STACK_INPUTS
    recipe: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if len(self.weights) != len(STACK_INPUTS) or tuple(self.inputs) != STACK_INPUTS:
            raise ValueError(f"stacker needs {len(STACK_INPUTS)} weights over {STACK_INPUTS}, got {self.inputs}")

    def proba(self, logits: np.ndarray, features: np.ndarray) -> np.ndarray:
        z = stack_inputs(logits, features) @ np.asarray(self.weights, dtype=np.float64) + self.bias
        return 1.0 / (1.0 + np.exp(-z))

    def as_dict(self) -> dict:
        d = asdict(self)
        d["inputs"] = list(self.inputs)
        return d

    @classmethod
    def from_dict(cls, d: dict) -> Stacker:
        return cls(
            list(d["weights"]), float(d["bias"]), tuple(d.get("inputs", STACK_INPUTS)), dict(d.get("recipe", {}))
        )


def fit_stacker(logits, features, labels, *, recipe: dict | None = None) -> Stacker:
    """Logistic regression with C chosen by 5-fold cross-validation (deterministic folds)."""
    from sklearn.linear_model import LogisticRegressionCV

    x = stack_inputs(logits, features)
    y = np.asarray(labels)
    if len(np.unique(y)) != 2:
        raise ValueError("the calibration labels must contain both classes")
    with warnings.catch_warnings():
        # scikit-learn 1.8+ announces two changes for 1.10 that do not touch this fit: l1_ratios'
        # default (irrelevant to the L2 penalty) and C_ becoming a float (read either way below)
        warnings.filterwarnings("ignore", message="The default value for l1_ratios", category=FutureWarning)
        warnings.filterwarnings(
            "ignore", message="The fitted attributes of LogisticRegressionCV", category=FutureWarning
        )
        model = LogisticRegressionCV(Cs=list(C_GRID), cv=5, scoring="neg_log_loss").fit(x, y)
    chosen_c = float(np.ravel(model.C_)[0])
    info = {
        "fit": "LogisticRegressionCV(Cs=logspace(-2, 2, 9), cv=5, scoring=neg_log_loss)",
        "C": chosen_c,
        "rows": int(len(y)),
    }
    return Stacker(
        [float(w) for w in model.coef_[0]], float(model.intercept_[0]), STACK_INPUTS, {**(recipe or {}), **info}
    )
