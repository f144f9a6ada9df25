"""Triage: cheap evidence about a whole triple that settles the clear cases before a network runs.

:func:`triage_features` describes each (question, references, candidate) triple by string evidence
over its references (SQuAD-normalised, as :mod:`qascore.text.answers`): whether a reference occurs
in the candidate as a run of whole words, the largest share of a reference's words found in it,
whether the numbers of a reference appear in it or conflict with the candidate's, a negation or
refusal in the candidate, the candidate's length, how much of the question it repeats, whether a
reference occurs in it as a substring (EVOUNA's containment), and the shipped linear AVA model's
probability (its four similarity features, best reference).
:class:`TriageModel` turns them into p(correct) by logistic regression (numpy at inference) and
names, per triple, the band it falls in: ``accept`` (p >= ``accept_at``, or, with
``accept_contained``, a reference contained in the candidate), ``reject`` (p <= ``reject_at``) or
``defer`` (the network decides). The bands and the containment rule are set on a calibration split
where the triage's own accuracy in each band is at least the network's on the same triples, so the
cascade built on them loses nothing to the network there (:class:`~qascore.judges.cascade.CalibratedCascade`).
"""
from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, field

import numpy as np

from ..text.answers import contains_answer, normalise_answer

TRIAGE_FEATURES = ("contained", "recall", "number_match", "number_conflict", "negated", "log_length",
                   "question_overlap", "short_reference", "substring", "linear")
SUBSTRING = TRIAGE_FEATURES.index("substring")
# words that turn an answer that names the reference into one that denies it or declines to answer
_NEGATION = re.compile(r"\b(not|no|never|cannot|cant|unknown|unclear|sorry|unable|neither|nor|none|dont|doesnt|"
                       r"didnt|isnt|wasnt|arent|werent|uncertain)\b")
_NUMBER = re.compile(r"\d+")


def _words(text: str) -> list[str]:
    return text.split()


def _has_run(words: list[str], run: list[str]) -> bool:
    n = len(run)
    if n == 0 or n > len(words):
        return False
    first = run[0]
    return any(words[i] == first and words[i:i + n] == run for i in range(len(words) - n + 1))


def triage_features(questions, references, candidates) -> np.ndarray:
    """(n, len(TRIAGE_FEATURES)) float64 evidence per triple; ``references[i]`` is a string or a
    non-empty list of strings (validated by the caller)."""
    from .linear import default_linear_model

    out = np.zeros((len(candidates), len(TRIAGE_FEATURES)))
    if len(candidates):
        out[:, -1] = default_linear_model("max").predict_proba(questions, references, candidates)
    cache: dict = {}

    def norm(text: str) -> str:
        value = cache.get(text)
        if value is None:
            value = cache[text] = normalise_answer(text)
        return value

    for i, (question, refs, candidate) in enumerate(zip(questions, references, candidates)):
        refs = [refs] if isinstance(refs, str) else refs
        cand = norm(candidate)
        words = _words(cand)
        word_set = set(words)
        cand_numbers = set(_NUMBER.findall(cand))
        contained = recall = number_match = substring = 0.0
        best_numbers: set = set()
        shortest = math.inf
        for ref in refs:
            ref_words = _words(norm(ref))
            if not ref_words:
                continue
            shortest = min(shortest, len(ref_words))
            if _has_run(words, ref_words):
                contained = 1.0
            if contains_answer(cand, norm(ref)):  # EVOUNA's containment, the one definition of it
                substring = 1.0
            share = sum(w in word_set for w in ref_words) / len(ref_words)
            numbers = set(_NUMBER.findall(" ".join(ref_words)))
            if numbers and numbers <= cand_numbers:
                number_match = 1.0
            if share > recall or (share == recall and not best_numbers):
                recall, best_numbers = share, numbers
        q_words = set(_words(norm(question)))
        out[i, :-1] = (contained, recall, number_match,
                  float(bool(best_numbers) and bool(cand_numbers) and not (best_numbers & cand_numbers)),
                  float(_NEGATION.search(cand) is not None), math.log1p(len(words)),
                  (sum(w in q_words for w in word_set) / len(word_set)) if word_set else 0.0,
                  1.0 if shortest <= 2 else 0.0, substring)
    return out


@dataclass
class TriageModel:
    """Logistic regression over :data:`TRIAGE_FEATURES` and the bands where it decides alone."""

    weights: list
    bias: float
    accept_at: float  # p >= accept_at: correct without the network
    reject_at: float  # p <= reject_at: wrong without the network
    accept_contained: bool = False  # a reference contained in the candidate: correct without the network
    recipe: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if len(self.weights) != len(TRIAGE_FEATURES):
            raise ValueError(f"a triage model needs {len(TRIAGE_FEATURES)} weights ({', '.join(TRIAGE_FEATURES)}), "
                             f"got {len(self.weights)}")
        if not 0.0 <= self.reject_at < self.accept_at <= 1.0:
            raise ValueError(f"triage bands must satisfy 0 <= reject_at < accept_at <= 1, got "
                             f"reject_at={self.reject_at}, accept_at={self.accept_at}")

    def proba(self, features: np.ndarray) -> np.ndarray:
        z = np.asarray(features, dtype=np.float64) @ np.asarray(self.weights, dtype=np.float64) + self.bias
        return 1.0 / (1.0 + np.exp(-z))

    def bands(self, proba: np.ndarray, features: np.ndarray | None = None) -> np.ndarray:
        """Per triple: 1 accept, -1 reject, 0 defer to the network (``features``: for the
        containment rule)."""
        accept = proba >= self.accept_at
        if self.accept_contained and features is not None:
            accept = accept | (np.asarray(features)[:, SUBSTRING] > 0)
        return np.where(accept, 1, np.where(proba <= self.reject_at, -1, 0)).astype(np.int8)

    def as_dict(self) -> dict:
        return {**asdict(self), "inputs": list(TRIAGE_FEATURES)}

    @classmethod
    def from_dict(cls, d: dict) -> TriageModel:
        inputs = tuple(d.get("inputs", TRIAGE_FEATURES))
        if inputs != TRIAGE_FEATURES:
            raise ValueError(f"triage model over {inputs}, this version reads {TRIAGE_FEATURES}")
        return cls(list(d["weights"]), float(d["bias"]), float(d["accept_at"]), float(d["reject_at"]),
                   bool(d.get("accept_contained", False)), dict(d.get("recipe", {})))


def fit_triage(features: np.ndarray, labels: np.ndarray) -> tuple[list, float]:
    """Logistic regression weights and bias (scikit-learn, the ``train`` extra)."""
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(C=1.0, max_iter=2000).fit(np.asarray(features), np.asarray(labels))
    return [float(w) for w in model.coef_[0]], float(model.intercept_[0])


def choose_bands(triage_proba: np.ndarray, network_labels: np.ndarray, labels: np.ndarray, *,
                 min_share: int = 20) -> tuple[float, float]:
    """The widest bands ``(accept_at, reject_at)`` where the triage is right at least as often as
    the network on the same calibration triples: scanning from the extremes inward, a band grows
    while, over all its triples, the triage's accuracy is >= the network's (each band keeps at
    least ``min_share`` triples before it is compared, so a handful of rows cannot set it)."""
    p = np.asarray(triage_proba, dtype=np.float64)
    net = np.asarray(network_labels, dtype=bool)
    gold = np.asarray(labels, dtype=bool)

    def widest(order: np.ndarray, says: bool) -> int:
        triage_right = np.cumsum(gold[order] == says)
        network_right = np.cumsum(net[order] == gold[order])
        ok = np.flatnonzero((triage_right >= network_right) & (np.arange(1, len(order) + 1) >= min_share))
        return int(ok.max()) + 1 if len(ok) else 0

    down = np.argsort(-p, kind="stable")
    up = np.argsort(p, kind="stable")
    k_accept, k_reject = widest(down, True), widest(up, False)
    accept_at = float(p[down[k_accept - 1]]) if k_accept else 1.0
    reject_at = float(p[up[k_reject - 1]]) if k_reject else 0.0
    if reject_at >= accept_at:
        raise ValueError("the accept and reject bands overlap: the triage features do not separate this data")
    return accept_at, reject_at


def calibrate_triage(network, fit, calibration, *, recipe: dict | None = None) -> TriageModel:
    """A triage for ``network`` (a judge): its regression fitted on the ``fit`` triples (features
    and human labels only: the network is not run there), its bands chosen on the ``calibration``
    triples against the network's labels there (:func:`choose_bands`). Both are
    :class:`~qascore.ava.data.Triples` with labels, references as lists of aliases."""
    weights, bias = fit_triage(triage_features(fit.questions, fit.references, fit.candidates), fit.require_labels())
    features = triage_features(calibration.questions, calibration.references, calibration.candidates)
    proba = 1.0 / (1.0 + np.exp(-(features @ np.asarray(weights) + bias)))
    network_labels = network.judge(calibration.questions, calibration.references, calibration.candidates).labels
    gold = calibration.require_labels() == 1
    accept_at, reject_at = choose_bands(proba, network_labels, gold)
    contained = features[:, SUBSTRING] > 0
    # the containment rule stands when, on the contained triples, accepting is right at least as often as the network
    rule_right, network_right = int(gold[contained].sum()), int((network_labels[contained] == gold[contained]).sum())
    info = {"fit": "LogisticRegression(C=1.0) on the fit part's features and human labels", "fit_rows": len(fit),
            "bands": "choose_bands on the calibration part: the widest bands where the triage is right at least "
                     "as often as the network", "calibration_rows": len(calibration),
            "contained": {"rows": int(contained.sum()), "accept_right": rule_right, "network_right": network_right}}
    return TriageModel(weights, bias, accept_at, reject_at, rule_right >= network_right, {**(recipe or {}), **info})
