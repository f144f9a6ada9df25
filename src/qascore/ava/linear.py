"""AVA's linear model: four similarity features, a linear SVM with Platt scaling, a threshold.

The features (paper, Section 5) are :func:`qascore.ava.features.compute_features`.

Training uses scikit-learn (a linear SVM with Platt scaling, as the paper did); inference is
numpy only: p = 1 / (1 + exp(A f + B)) with f = w . x + b the SVM decision value.
Several references: probabilities averaged.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from ..io import dumps, open_output, read_json
from ..models import bundled_path
from ..runtime.session import check_model_file
from ..signature import make_signature
from .features import FEATURE_NAMES, _kernel, compute_features, pack_short_answers
from .rows import check_lengths, expand_rows, mean_by_owner

# _kernel and pack_short_answers stay importable from here for the benchmarks.
__all__ = ["FEATURE_NAMES", "LinearAva", "_kernel", "compute_features", "default_linear_model",
           "pack_short_answers", "train_linear"]


@dataclass
class LinearAva:
    """A trained linear AVA model (numpy inference)."""

    weights: list  # 4 floats; a positive decision value leans to 'correct'
    bias: float
    platt_a: float
    platt_b: float
    threshold: float = 0.5
    recipe: dict = field(default_factory=dict)

    def settings(self) -> dict:
        """Every setting that changes a probability or a label, as the signature lists them."""
        return dict(features="+".join(FEATURE_NAMES), tokenizer="rouge", threshold=f"{self.threshold:.2f}", refs="mean")

    @property
    def signature(self) -> str:
        return make_signature("ava-linear", **self.settings())

    def decision(self, features: np.ndarray) -> np.ndarray:
        return features @ np.asarray(self.weights, dtype=np.float64) + self.bias

    def proba_of_features(self, features: np.ndarray) -> np.ndarray:
        return 1.0 / (1.0 + np.exp(self.platt_a * self.decision(features) + self.platt_b))

    def predict_proba(self, questions, references, candidates, short_answers=None, *, n_jobs=None) -> np.ndarray:
        """p(correct) per triple; ``references[i]`` a string or a list (probabilities averaged).

        ``short_answers[i]`` (a list of strings) replaces triple i's references in x1. Lists of
        different lengths are a ValueError naming the lengths.
        """
        n = check_lengths(questions, references, candidates)
        if short_answers is not None and len(short_answers) != n:
            raise ValueError(f"short_answers has {len(short_answers)} items, expected {n}")
        if n == 0:
            return np.zeros(0)
        q, r, t, owner = expand_rows(questions, references, candidates)
        s = None if short_answers is None else [short_answers[i] for i in owner]
        feats = compute_features(q, r, t, s, n_jobs=n_jobs)
        return mean_by_owner(self.proba_of_features(feats), owner, n)

    def predict(self, questions, references, candidates, short_answers=None, *, n_jobs=None) -> np.ndarray:
        return (
            self.predict_proba(questions, references, candidates, short_answers, n_jobs=n_jobs) >= self.threshold
        ).astype(np.int64)

    def save(self, path) -> None:
        """Write the model as JSON (atomically: a temporary file renamed into place)."""
        with open_output(Path(path)) as out:
            out.write(dumps(asdict(self)) + "\n")

    @classmethod
    def load(cls, path) -> LinearAva:
        return cls(**read_json(check_model_file(path, "linear AVA model")))


def default_linear_model() -> LinearAva:
    """The shipped linear model (``models/ava/linear.json``), trained on EVOUNA-NQ's train split."""
    return LinearAva.load(bundled_path("ava", "linear.json"))


def train_linear(features: np.ndarray, labels: np.ndarray, *, seed: int = 13, recipe: dict | None = None) -> LinearAva:
    """Fit a linear SVM with Platt scaling (needs scikit-learn): ``CalibratedClassifierCV(
    LinearSVC(), method="sigmoid", ensemble=False)``, the replacement scikit-learn names for
    ``SVC(probability=True)``; the SVM is fitted on all rows, the sigmoid on 5-fold
    out-of-fold decision values. Its numbers are kept, so inference needs numpy only."""
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.svm import LinearSVC

    labels = np.asarray(labels)
    if set(np.unique(labels).tolist()) != {0, 1}:
        raise ValueError(f"labels must contain both 0 and 1, got {np.unique(labels).tolist()}")
    model = CalibratedClassifierCV(LinearSVC(random_state=seed), method="sigmoid", ensemble=False, cv=5)
    model.fit(features, labels)
    calibrated = model.calibrated_classifiers_[0]
    svm, sigmoid = calibrated.estimator, calibrated.calibrators[0]
    # scikit-learn's sigmoid calibrator: p(class 1) = 1 / (1 + exp(a f + b)), f = svm.decision_function
    return LinearAva(
        weights=svm.coef_[0].tolist(),
        bias=float(svm.intercept_[0]),
        platt_a=float(sigmoid.a_),
        platt_b=float(sigmoid.b_),
        recipe=recipe or {},
    )
