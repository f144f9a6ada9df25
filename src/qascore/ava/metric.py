"""AVA as a :class:`~qascore.metric.Metric`: the judge model's ``predict_proba`` per batch of triples.

A batch is ``(questions, references, candidates)``: parallel sequences, ``references[i]`` a string or
a non-empty list of strings, combined by the rule ``refs``: ``max`` (default: the answer is right
when it matches any reference) or ``mean`` (the paper's rule, for sentence-long references).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..validate import check_real
from ..metric import CorpusScore, ExampleScores, Metric, Statistics, mean_statistics, mean_values
from ..judges.load import load_judge
from ..judges.triples import check_triples


class Ava(Metric):
    """AVA answer correctness of (question, reference(s), candidate) triples.

    ``model``: ``"default"`` (the shipped int8 ONNX a2 model with its stacker; needs the ``onnx``
    extra), ``"linear"`` (the shipped four-feature linear model, numpy only), a linear model
    ``.json``, an ONNX model directory, any other judge spec of :func:`~qascore.judges.load_judge`
    (``containment``, ``cascade``, ``A>B``), or a judge object (:class:`~qascore.judges.LinearAva`,
    :class:`~qascore.judges.OnnxAvaModel`, :class:`~qascore.judges.CascadeJudge`, ...).
    ``refs``: how a triple's references combine,
    ``"max"`` (default; references are acceptable alternatives, e.g. aliases) or ``"mean"`` (the
    paper's rule, for sentence-long references that each restate the answer); it goes into the
    signature. ``threshold`` defaults to the model's one tuned for that rule;
    ``device`` applies to ONNX models, ``n_jobs`` to the feature threads (linear) or the ONNX
    Runtime threads.

    ``score`` gives per example ``probability`` (exactly ``model.predict_proba`` of the batch) and
    ``label`` (1 when probability >= threshold, else 0: ``model.predict`` at the model's
    threshold). ``corpus_score`` gives ``probability`` (the mean probability) and ``correct`` (the
    fraction judged correct: the system's estimated accuracy); an empty corpus gives 0.0 for both.
    Both models score each triple independently of its batch (the shipped ONNX model quantises
    activations with fixed ranges), so any split of a corpus gives the same figures.

    Example:

        >>> ava = Ava("linear")
        >>> questions, references = ["capital of France?"] * 2, [["Paris"], ["Paris"]]
        >>> ava.score(questions, references, ["Paris", "Lyon"])["label"].tolist()
        [1, 0]
        >>> ava.corpus_score(questions, references, ["Paris", "Lyon"])["correct"]
        0.5

    :param model: a model or judge spec, or a judge object (see above).
    :param refs: ``max`` or ``mean``.
    :param threshold: p(correct) at or above it is correct (default: the model's tuned one).
    :param device: ``auto``, ``cpu`` or ``cuda`` (ONNX models).
    :param n_jobs: threads (features or ONNX Runtime).
    :raises ValueError: for an unknown spec or rule, or a threshold outside [0, 1].
    :raises qascore.errors.MissingExtraError: for an ONNX model without the ``onnx`` extra.
    """

    name = "ava"

    def __init__(self, model: Any = "default", *, refs: str = "max", threshold: float | None = None,
                 device: str = "auto", n_jobs: int | None = None) -> None:
        if isinstance(model, str):
            model = load_judge(model, refs=refs, device=device, n_threads=n_jobs)
        if hasattr(model, "with_refs"):
            model = model.with_refs(refs, threshold)
        if n_jobs is not None and hasattr(model, "with_threads"):
            model = model.with_threads(n_jobs)
        self.model = model
        self.threshold = float(self.model.threshold if threshold is None
                               else check_real(threshold, "threshold", low=0.0, high=1.0))
        self.n_jobs = n_jobs

    def settings(self) -> dict[str, Any]:
        judge = {"ava": "onnx", "ava-linear": "linear"}.get(self.model.name, self.model.name)
        model_settings = self.model.settings() if hasattr(self.model, "settings") else {"model": self.model.signature()}
        return {"judge": judge, **model_settings, "threshold": f"{self.threshold:.2f}"}

    def probabilities(self, questions, references, candidates) -> np.ndarray:
        """p(correct) per triple: the model's ``predict_proba`` after the batch is validated."""
        questions, references, candidates = check_triples(questions, references, candidates)
        return self.model.predict_proba(questions, references, candidates)

    def score(self, questions, references, candidates) -> ExampleScores:
        probability = np.asarray(self.probabilities(questions, references, candidates), dtype=np.float64)
        label = (probability >= self.threshold).astype(np.int64)
        return ExampleScores(self.name, {"probability": probability, "label": label}, self.signature())

    def statistics(self, questions, references, candidates) -> Statistics:
        scores = self.score(questions, references, candidates)
        return mean_statistics({"probability": scores["probability"], "correct": scores["label"]}, len(scores))

    def aggregate(self, statistics: Statistics) -> CorpusScore:
        return CorpusScore(self.name, mean_values(statistics), statistics.n, self.signature())
