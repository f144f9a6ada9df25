"""Transformer AVA models on ONNX Runtime (no torch): p(correct | question, reference, candidate).

A model directory holds ``model.onnx``, ``model.json`` (architecture, window, tuned threshold,
recipe) and ``tokenizer.json``, unless ``model.json``'s ``bundled_tokenizer`` names one bundled
under ``qascore/models`` (the shipped models share ``minilm/tokenizer.json``). The default one
ships in ``qascore/models/ava``.
"""
from __future__ import annotations

import copy
from pathlib import Path

import numpy as np

from ..errors import require_extra
from ..io import read_json
from ..models import bundled_path
from ..runtime.batching import pad_rows, run_bucketed
from ..runtime.session import ModelFileError, OnnxSession, check_model_file
from ..runtime.tokenize import TextTokenizer, report_truncation
from ..text.sentences import split_sentences
from .base import Judge
from .cascade import CalibratedCascade
from .features import compute_features
from .architectures import PAIR_MAX_LENGTH, build_pairs, input_names, slots_of
from .triples import (REFERENCE_RULES, check_encodable_triples, check_lengths, check_rule, check_triples,
                   combine_by_owner, expand_rows, lead_rows, mean_by_owner, sigmoid, unique_rows)
from .stacking import Stacker
from .triage import TriageModel

__all__ = ["OnnxAvaModel", "default_model_dir", "expand_rows", "load_default_model", "load_default_network",
           "load_model_dir", "mean_by_owner", "sigmoid"]
ONNX_MODULES = ("onnxruntime", "tokenizers")


class OnnxAvaModel(Judge):
    """An exported a0/a1/a2 network. ``predict_proba(q, refs, t)`` combines a triple's references
    by the rule ``refs``: ``max`` (default; references are acceptable alternatives) or ``mean``
    (the paper's rule). ``thresholds`` holds the tuned threshold of each rule; ``threshold``, when
    given, overrides it. Built by :meth:`from_dir` from an exported model directory; needs the
    ``onnx`` extra.

    Example:

        >>> from qascore.judges.onnx import default_model_dir
        >>> network = OnnxAvaModel.from_dir(default_model_dir())
        >>> network.predict(["who wrote Hamlet?"], ["William Shakespeare"], ["Shakespeare wrote it."]).tolist()
        [1]
    """

    name = "ava"

    def __init__(self, model_path, *, tokenizer_file, arch: str, device: str = "auto", n_threads: int | None = None,
                 batch_size: int = 32, max_length: int = PAIR_MAX_LENGTH, threshold: float | None = None,
                 thresholds: dict | None = None, refs: str = "max", early_stop: bool = True, truncation: str = "warn",
                 recipe: dict | None = None, stacker: Stacker | None = None, cuda_float16: bool = False) -> None:
        require_extra("onnx", *ONNX_MODULES)
        slots_of(arch)
        self.stacker = stacker
        self.arch = arch
        self.refs = check_rule(refs)
        self.early_stop = bool(early_stop)
        self.thresholds = {rule: float(v) for rule, v in (thresholds or {}).items()}
        self.threshold = float(self.thresholds.get(refs, 0.5) if threshold is None else threshold)
        self.batch_size = batch_size
        self.truncation = truncation
        self.recipe = recipe or {}
        self.model_path = check_model_file(model_path)
        self.tokenizer = TextTokenizer(tokenizer_file, max_length=max_length)
        self.session = OnnxSession(self.model_path, device=device, n_threads=n_threads, cuda_float16=cuda_float16,
                                   input_names=input_names(arch), output_names=["logits"])

    @classmethod
    def from_dir(cls, directory, **options) -> OnnxAvaModel:
        directory = Path(directory)
        meta_path = check_model_file(directory / "model.json", "AVA model description (model.json)")
        meta = read_json(meta_path)
        for key in ("arch", "max_length"):
            if key not in meta:
                raise ModelFileError(f"{meta_path}: missing key {key!r}")
        if "thresholds" not in meta and "threshold" not in meta:
            raise ModelFileError(f"{meta_path}: missing key 'thresholds' (the tuned threshold of each reference rule)")
        options.setdefault("thresholds", meta.get("thresholds") or dict.fromkeys(REFERENCE_RULES, meta["threshold"]))
        if "stacker" in meta:
            options.setdefault("stacker", Stacker.from_dict(meta["stacker"]))
        bundled = meta.get("bundled_tokenizer")
        if bundled is not None and not isinstance(bundled, str):
            raise ModelFileError(f"{meta_path}: 'bundled_tokenizer' must be a path in qascore/models, got {bundled!r}")
        tokenizer_file = bundled_path(*bundled.split("/")) if bundled else directory / "tokenizer.json"
        return cls(directory / "model.onnx", tokenizer_file=tokenizer_file, arch=meta["arch"],
                   max_length=meta["max_length"], recipe=meta, **options)

    def settings(self) -> dict:
        """Every setting that changes a probability or a label, as the signature lists them."""
        return dict(model=self.recipe.get("name", self.arch), arch=self.arch, threshold=f"{self.threshold:.2f}",
                    max_length=self.tokenizer.max_length, refs=self.refs,
                    **({"early_stop": "yes" if self.early_stop else "no"} if self.refs == "max" else {}),
                    stack="logit+linear4" if self.stacker else "none", runtime=self.session.describe())


    def with_refs(self, refs: str, threshold: float | None = None) -> OnnxAvaModel:
        """The same model (one shared session) under the reference rule ``refs``, with that rule's
        tuned threshold unless ``threshold`` is given (early stopping stops at it)."""
        model = copy.copy(self)
        model.refs = check_rule(refs)
        model.threshold = float(self.thresholds.get(refs, self.threshold) if threshold is None else threshold)
        return model

    def logits_of_slots(self, slots: list) -> np.ndarray:
        """Logits for pre-encoded slots (one :class:`~qascore.runtime.Encoded` per slot)."""
        names = input_names(self.arch)
        pad = self.tokenizer.pad_id

        def run_batch(index):
            feeds = {}
            width = max(int(enc.lengths()[index].max()) for enc in slots)  # slots share one width
            for k, enc in enumerate(slots):
                ids, mask = pad_rows(enc.ids, index, pad, width=width)
                types, _ = pad_rows(enc.type_ids, index, 0, width=width)
                feeds[names[3 * k]], feeds[names[3 * k + 1]], feeds[names[3 * k + 2]] = ids, mask, types
            return self.session.run(feeds, ["logits"])[0]

        lengths = np.max([enc.lengths() for enc in slots], axis=0)
        return run_bucketed(lengths, run_batch, batch_size=self.batch_size)

    def _encode(self, q: list, r: list, t: list) -> tuple[list, np.ndarray]:
        """The encoded slots of rows and, per row, whether any of its pairs was cut to the window."""
        slots = [self.tokenizer.encode(a, b, truncation="allow") for a, b in build_pairs(self.arch, q, r, t)]
        return slots, np.any([enc.truncated for enc in slots], axis=0) if slots else np.zeros(len(q), dtype=bool)

    def candidate_windows(self, q: list, r: list, t: list) -> tuple[list, np.ndarray]:
        """Each row's candidate as it fits the window: whole when it fits, else as consecutive runs
        of whole sentences, each as long as fits beside the row's question and reference (a single
        sentence too long for the window is one run, and is cut). Returns the windows and, per
        window, its row."""
        _, cut = self._encode(q, r, t)
        windows, owner = [], []
        for i, candidate in enumerate(t):
            if not cut[i]:
                windows.append(candidate)
                owner.append(i)
                continue
            current = ""
            for sentence in split_sentences(candidate) or [candidate]:
                trial = f"{current} {sentence}" if current else sentence
                if not current or not self._encode([q[i]], [r[i]], [trial])[1][0]:
                    current = trial
                else:
                    windows.append(current)
                    owner.append(i)
                    current = sentence
            windows.append(current)
            owner.append(i)
        return windows, np.asarray(owner, dtype=np.int64)

    def row_logits(self, q: list, r: list, t: list) -> np.ndarray:
        """The network's logit for each single-reference row. A candidate longer than the window
        is read, not cut: as windows of whole sentences (:meth:`candidate_windows`), the row's
        logit the largest of its windows' (the answer may be in any of them). What is still cut (a
        sentence longer than the window) is reported by the ``truncation`` policy, once per call."""
        check_lengths(q, r, t)
        windows, owner = self.candidate_windows(q, r, t)
        slots, cut = self._encode([q[i] for i in owner], [r[i] for i in owner], windows)
        report_truncation(cut, self.tokenizer.max_length, self.truncation)
        logits = np.asarray(self.logits_of_slots(slots), dtype=np.float64)
        if len(owner) == len(q):
            return logits
        out = np.full(len(q), -np.inf)
        np.maximum.at(out, owner, logits)
        return out

    def row_proba(self, q: list, r: list, t: list) -> np.ndarray:
        """p(correct) of each single-reference row (the stacker applied when there is one); a
        repeated row is scored once."""
        first, inverse = unique_rows(q, r, t)
        q, r, t = [q[i] for i in first], [r[i] for i in first], [t[i] for i in first]
        logits = self.row_logits(q, r, t)
        proba = sigmoid(logits) if self.stacker is None else self.stacker.proba(logits, compute_features(q, r, t))
        return proba[inverse]

    def predict_proba(self, questions, references, candidates) -> np.ndarray:
        """p(correct) per triple; ``references[i]`` is a string or a list, combined by the rule
        ``refs``. Under ``max``, references equal after answer normalisation are scored once, and
        with ``early_stop`` the reference that best matches the candidate lexically is scored
        first: when it reaches the threshold the others are not scored (the label is the one the
        full max gives; the probability is that reference's, a lower bound of the max). With a
        stacker, each row's logit is combined with its linear features first. Lists of different
        lengths are a ValueError naming the lengths."""
        questions, references, candidates = check_triples(questions, references, candidates)
        n = len(questions)
        if n == 0:
            return np.zeros(0)
        q, r, t, owner = expand_rows(questions, references, candidates, distinct=self.refs == "max")
        check_encodable_triples(questions, references, candidates)  # the tokenizer takes valid Unicode only
        if self.refs == "mean" or not self.early_stop or len(owner) == n:
            return combine_by_owner(self.row_proba(q, r, t), owner, n, self.refs)
        proba = np.full(len(owner), -np.inf)  # a row left unscored cannot be the max

        def score(rows: np.ndarray) -> None:
            if len(rows):
                proba[rows] = self.row_proba([q[i] for i in rows], [r[i] for i in rows], [t[i] for i in rows])

        lead = lead_rows(r, t, owner)
        score(lead)
        settled = np.zeros(n, dtype=bool)
        settled[owner[lead]] = proba[lead] >= self.threshold
        is_lead = np.zeros(len(owner), dtype=bool)
        is_lead[lead] = True
        score(np.flatnonzero(~is_lead & ~settled[owner]))
        return combine_by_owner(proba, owner, n, "max")


def default_model_dir() -> Path:
    """The directory of the shipped model (``qascore/models/ava``)."""
    return bundled_path("ava")


def load_model_dir(directory, *, triage: bool = True, **options) -> Judge:
    """The judge an ONNX model directory describes: its network, behind its calibrated triage
    (:class:`~qascore.judges.cascade.CalibratedCascade`) when ``model.json`` has one and
    ``triage`` is true. ``options`` go to :class:`OnnxAvaModel`."""
    network = OnnxAvaModel.from_dir(directory, **options)
    recipe = network.recipe.get("triage")
    if not triage or recipe is None:
        return network
    return CalibratedCascade(TriageModel.from_dict(recipe), network)


def load_default_model(**options) -> Judge:
    """The shipped AVA judge: a calibrated triage settles the clear triples and the shipped network
    (int8 ONNX a2 + stacker, see docs/ava.md for its recipe) judges the rest
    (:class:`~qascore.judges.cascade.CalibratedCascade`, docs/judges.md).

    Needs the ``onnx`` extra: without onnxruntime or tokenizers it raises
    :class:`~qascore.errors.MissingExtraError` naming ``pip install "qascore[onnx]"``.
    ``options`` go to :class:`OnnxAvaModel` (``device``, ``n_threads``, ``truncation``, ...).

    Example:

        >>> judge = load_default_model()
        >>> judge.judge(["who wrote Hamlet?", "capital of France?"], [["Shakespeare", "W. Shakespeare"], "Paris"],
        ...             ["It was William Shakespeare.", "Lyon"]).labels.tolist()
        [True, False]

    :returns: the shipped judge (a :class:`~qascore.judges.cascade.CalibratedCascade`).
    :raises qascore.errors.MissingExtraError: without onnxruntime or tokenizers.
    """
    require_extra("onnx", *ONNX_MODULES)
    return load_model_dir(default_model_dir(), **options)


def load_default_network(**options) -> OnnxAvaModel:
    """The shipped network alone, judging every triple (the judge spec ``network``)."""
    require_extra("onnx", *ONNX_MODULES)
    return OnnxAvaModel.from_dir(default_model_dir(), **options)
