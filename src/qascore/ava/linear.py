"""AVA's linear model: four similarity features, a linear SVM with Platt scaling, a threshold.

Features (paper, Section 5), computed by the compiled kernel ``qascore._kernels.ava_features``
over token ids of the ``rouge`` tokeniser (lowercase, runs of [a-z0-9]):
x1 = is-included(s, t) (a short answer s occurs as a contiguous token run in t), x2 =
sim-text(r, t), x3 = sim-text(r, q), x4 = sim-text(q, t), sim-text(a, b) = 2|A & B| / (|A| + |B|)
over token sets. The short answers s of a triple are its ``short_answers`` when given (EVOUNA's
'/'-separated gold alternatives), else its reference itself.

Training uses scikit-learn (a linear SVM with Platt scaling, as the paper did); inference is
numpy only: p = 1 / (1 + exp(A f + B)) with f = w . x + b the SVM decision value.
Several references: probabilities averaged.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from .._parallel import resolve_n_jobs
from ..models import bundled_path
from ..runtime.session import check_model_file
from ..signature import make_signature
from ..text import Vocabulary, get_tokenizer
from .transformer import expand_rows, mean_by_owner

FEATURE_NAMES = ("is_included_s_t", "sim_text_r_t", "sim_text_r_q", "sim_text_q_t")


def _kernel():
    from .._kernels import ava_features

    return ava_features.ava_features


def pack_short_answers(tokenizer, vocab, short_answers: list, n_jobs: int):
    """Packed ids of every short answer and the group offsets of each triple's answers."""
    flat = [s for group in short_answers for s in group]
    group = np.zeros(len(short_answers) + 1, dtype=np.int64)
    np.cumsum([len(g) for g in short_answers], out=group[1:])
    return tokenizer.encode_batch(flat, vocab, n_jobs=n_jobs), group


def compute_features(questions, references, candidates, short_answers=None, *, n_jobs: int | None = None) -> np.ndarray:
    """(n, 4) float64 features for single-reference rows (``references[i]`` a string)."""
    n = len(questions)
    if not (len(references) == n == len(candidates)):
        raise ValueError(f"questions, references and candidates differ in length ({n}, {len(references)}, {len(candidates)})")
    if short_answers is None:
        short_answers = [[r] for r in references]
    elif len(short_answers) != n:
        raise ValueError(f"short_answers has {len(short_answers)} items, expected {n}")
    threads = resolve_n_jobs(n_jobs)
    tokenizer, vocab = get_tokenizer("rouge"), Vocabulary()
    q = tokenizer.encode_batch(list(questions), vocab, n_jobs=threads)
    r = tokenizer.encode_batch(list(references), vocab, n_jobs=threads)
    t = tokenizer.encode_batch(list(candidates), vocab, n_jobs=threads)
    s, group = pack_short_answers(tokenizer, vocab, short_answers, threads)
    return _kernel()(q.ids, q.offsets, r.ids, r.offsets, t.ids, t.offsets, s.ids, s.offsets, group, len(vocab), threads)


@dataclass
class LinearAva:
    """A trained linear AVA model (numpy inference)."""

    weights: list  # 4 floats; a positive decision value leans to 'correct'
    bias: float
    platt_a: float
    platt_b: float
    threshold: float = 0.5
    recipe: dict = field(default_factory=dict)

    @property
    def signature(self) -> str:
        return make_signature("ava-linear", features="+".join(FEATURE_NAMES), tokenizer="rouge",
                              threshold=f"{self.threshold:.2f}", refs="mean")

    def decision(self, features: np.ndarray) -> np.ndarray:
        return features @ np.asarray(self.weights, dtype=np.float64) + self.bias

    def proba_of_features(self, features: np.ndarray) -> np.ndarray:
        return 1.0 / (1.0 + np.exp(self.platt_a * self.decision(features) + self.platt_b))

    def predict_proba(self, questions, references, candidates, short_answers=None, *, n_jobs=None) -> np.ndarray:
        """p(correct) per triple; ``references[i]`` a string or a list (probabilities averaged)."""
        n = len(questions)
        if n == 0:
            return np.zeros(0)
        q, r, t, owner = expand_rows(questions, references, candidates)
        s = None if short_answers is None else [short_answers[i] for i in owner]
        feats = compute_features(q, r, t, s, n_jobs=n_jobs)
        return mean_by_owner(self.proba_of_features(feats), owner, n)

    def predict(self, questions, references, candidates, short_answers=None, *, n_jobs=None) -> np.ndarray:
        return (self.predict_proba(questions, references, candidates, short_answers, n_jobs=n_jobs) >= self.threshold).astype(np.int64)

    def save(self, path) -> None:
        Path(path).write_text(json.dumps(asdict(self), indent=1), encoding="utf-8")

    @classmethod
    def load(cls, path) -> "LinearAva":
        path = check_model_file(path, "linear AVA model")
        data = json.loads(path.read_text(encoding="utf-8"))
        return cls(**data)


def default_linear_model() -> LinearAva:
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
    return LinearAva(weights=svm.coef_[0].tolist(), bias=float(svm.intercept_[0]),
                     platt_a=float(sigmoid.a_), platt_b=float(sigmoid.b_), recipe=recipe or {})
