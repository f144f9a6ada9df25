"""AVA's linear model: four similarity features, a linear SVM with Platt scaling, a threshold.

The features (paper, Section 5) are :func:`qascore.judges.features.compute_features`.

Training uses scikit-learn (a linear SVM with Platt scaling, as the paper did); inference is
numpy only: p = 1 / (1 + exp(A f + B)) with f = w . x + b the SVM decision value.
Several references: probabilities combined by the rule ``refs`` (``max`` by default, or ``mean``).
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, replace
from dataclasses import fields as dataclass_fields
from pathlib import Path

import numpy as np

from ..io import display_name, dumps, open_output, read_json
from ..models import bundled_path
from ..runtime.session import ModelFileError, check_model_file
from .base import Judge
from .features import FEATURE_NAMES, _kernel, compute_features, pack_short_answers
from .triples import REFERENCE_RULES, check_rule, check_triples, combine_by_owner, expand_rows

# _kernel and pack_short_answers stay importable from here for the benchmarks.
__all__ = ["FEATURE_NAMES", "LinearAva", "_kernel", "compute_features", "default_linear_model",
           "pack_short_answers", "train_linear"]


@dataclass
class LinearAva(Judge):
    """A trained linear AVA model (numpy inference).

    ``thresholds`` holds the tuned threshold of each reference rule; ``threshold`` is the one in
    use (the rule ``refs``'s, unless set otherwise).

    Example:

        >>> model = default_linear_model()
        >>> model.predict(["who wrote Hamlet?", "capital of France?"], [["Shakespeare", "W. Shakespeare"], "Paris"],
        ...               ["It was William Shakespeare.", "Lyon"]).tolist()
        [1, 0]
    """

    name = "ava-linear"

    weights: list  # 4 floats; a positive decision value leans to 'correct'
    bias: float
    platt_a: float
    platt_b: float
    threshold: float | None = None
    recipe: dict = field(default_factory=dict)
    thresholds: dict = field(default_factory=dict)
    refs: str = "max"
    n_jobs: int | None = field(default=None, compare=False)  # feature threads; not part of the model file

    def __post_init__(self) -> None:
        check_rule(self.refs)
        if not self.thresholds:  # a model saved with one threshold uses it under both rules
            self.thresholds = dict.fromkeys(REFERENCE_RULES, 0.5 if self.threshold is None else self.threshold)
        if self.threshold is None:
            self.threshold = float(self.thresholds.get(self.refs, 0.5))

    def settings(self) -> dict:
        """Every setting that changes a probability or a label, as the signature lists them."""
        return dict(features="+".join(FEATURE_NAMES), tokenizer="rouge", threshold=f"{self.threshold:.2f}",
                    refs=self.refs)

    def with_refs(self, refs: str, threshold: float | None = None) -> LinearAva:
        """The same model under the reference rule ``refs``, with that rule's tuned threshold unless
        ``threshold`` is given."""
        chosen = self.thresholds.get(refs, self.threshold) if threshold is None else threshold
        return replace(self, refs=check_rule(refs), threshold=chosen)

    def with_threads(self, n_threads: int | None) -> LinearAva:
        """The same model computing its features on ``n_threads`` threads."""
        return replace(self, n_jobs=n_threads)


    def decision(self, features: np.ndarray) -> np.ndarray:
        return features @ np.asarray(self.weights, dtype=np.float64) + self.bias

    def proba_of_features(self, features: np.ndarray) -> np.ndarray:
        return 1.0 / (1.0 + np.exp(self.platt_a * self.decision(features) + self.platt_b))

    def predict_proba(self, questions, references, candidates, short_answers=None, *, n_jobs=None) -> np.ndarray:
        """p(correct) per triple; ``references[i]`` a string or a list (combined by ``refs``).

        ``short_answers[i]`` (a list of strings) replaces triple i's references in x1. Lists of
        different lengths are a ValueError naming the lengths.
        """
        questions, references, candidates = check_triples(questions, references, candidates)
        n = len(questions)
        if short_answers is not None and len(short_answers) != n:
            raise ValueError(f"short_answers has {len(short_answers)} items, expected {n}")
        if n == 0:
            return np.zeros(0)
        q, r, t, owner = expand_rows(questions, references, candidates, distinct=self.refs == "max")
        s = None if short_answers is None else [short_answers[i] for i in owner]
        feats = compute_features(q, r, t, s, n_jobs=self.n_jobs if n_jobs is None else n_jobs)
        return combine_by_owner(self.proba_of_features(feats), owner, n, self.refs)

    def predict(self, questions, references, candidates, short_answers=None, *, n_jobs=None) -> np.ndarray:
        return (
            self.predict_proba(questions, references, candidates, short_answers, n_jobs=n_jobs) >= self.threshold
        ).astype(np.int64)

    def save(self, path) -> None:
        """Write the model as JSON (atomically: a temporary file renamed into place)."""
        with open_output(Path(path)) as out:
            saved = asdict(self)
            del saved["n_jobs"]
            out.write(dumps(saved) + "\n")

    @classmethod
    def load(cls, path, *, refs: str = "max") -> LinearAva:
        """A saved model under the reference rule ``refs`` (its tuned threshold for that rule)."""
        saved = _check_saved(read_json(check_model_file(path, "linear AVA model")), path)
        if saved.get("thresholds"):
            saved["threshold"] = None  # the rule's own
        return cls(**{**saved, "refs": refs})


def _check_saved(saved, path) -> dict:
    """A saved model's JSON object, or ModelFileError naming the file and what is wrong with it
    (not a constructor's missing-argument message)."""
    def wrong(what: str) -> ModelFileError:
        return ModelFileError(f"{display_name(path)}: not a linear AVA model: {what}")

    if not isinstance(saved, dict):
        raise wrong(f"expected a JSON object, got {type(saved).__name__}")
    fields = {f.name for f in dataclass_fields(LinearAva)} - {"n_jobs"}
    missing = [name for name in ("weights", "bias", "platt_a", "platt_b") if name not in saved]
    if missing:
        raise wrong(f"missing {', '.join(map(repr, missing))}")
    unknown = sorted(set(saved) - fields)
    if unknown:
        raise wrong(f"unknown {', '.join(map(repr, unknown))}")
    weights = saved["weights"]
    if (not isinstance(weights, list) or len(weights) != len(FEATURE_NAMES)
            or not all(_is_number(w) for w in weights)):
        raise wrong(f"'weights' must be a list of {len(FEATURE_NAMES)} numbers, got {weights!r:.80}")
    for name in ("bias", "platt_a", "platt_b"):
        if not _is_number(saved[name]):
            raise wrong(f"{name!r} must be a number, got {saved[name]!r:.80}")
    for name, kind in (("recipe", dict), ("thresholds", dict)):
        if name in saved and not isinstance(saved[name], kind):
            raise wrong(f"{name!r} must be a JSON object, got {type(saved[name]).__name__}")
    return saved


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def default_linear_model(refs: str = "max") -> LinearAva:
    """The shipped linear model (``models/ava/linear.json``), trained on EVOUNA-NQ's train split.

    Example:

        >>> model = default_linear_model()
        >>> model.refs, model.threshold
        ('max', 0.36)
        >>> model.predict_proba(["capital of France?"], ["Paris"], ["Lyon"]).round(2).tolist()
        [0.2]

    :param refs: the reference rule, ``max`` (any acceptable reference) or ``mean`` (the paper's).
    :returns: a :class:`LinearAva` with that rule's tuned threshold.
    """
    return LinearAva.load(bundled_path("ava", "linear.json"), refs=refs)


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
