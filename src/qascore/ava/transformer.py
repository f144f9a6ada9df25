"""Transformer AVA models on ONNX Runtime (no torch): p(correct | question, reference, candidate).

A model directory holds ``model.onnx``, ``tokenizer.json`` and ``model.json`` (architecture,
window, tuned threshold, recipe). The default one ships in ``qascore/models/ava``.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ..errors import require_extra
from ..io import read_json
from ..models import bundled_path
from ..runtime.batching import pad_rows, run_bucketed
from ..runtime.session import ModelFileError, OnnxSession, check_model_file
from ..runtime.tokenize import TextTokenizer
from ..signature import make_signature
from .features import compute_features
from .inputs import PAIR_MAX_LENGTH, build_pairs, input_names, slots_of
from .rows import check_lengths, expand_rows, mean_by_owner, sigmoid
from .stacking import Stacker

# expand_rows, mean_by_owner and sigmoid stay importable from here (they lived here before rows.py).
__all__ = ["OnnxAvaModel", "default_model_dir", "expand_rows", "load_default_model", "mean_by_owner", "sigmoid"]
ONNX_MODULES = ("onnxruntime", "tokenizers")


class OnnxAvaModel:
    """An exported a0/a1/a2 network. ``predict_proba(q, refs, t)`` averages over references."""

    def __init__(self, model_path, *, tokenizer_file, arch: str, device: str = "auto", n_threads: int | None = None,
                 batch_size: int = 32, max_length: int = PAIR_MAX_LENGTH, threshold: float = 0.5,
                 truncation: str = "warn", recipe: dict | None = None, stacker: Stacker | None = None,
                 cuda_float16: bool = False) -> None:
        require_extra("onnx", *ONNX_MODULES)
        slots_of(arch)
        self.stacker = stacker
        self.arch = arch
        self.threshold = float(threshold)
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
        for key in ("arch", "max_length", "threshold"):
            if key not in meta:
                raise ModelFileError(f"{meta_path}: missing key {key!r}")
        options.setdefault("threshold", meta["threshold"])
        if "stacker" in meta:
            options.setdefault("stacker", Stacker.from_dict(meta["stacker"]))
        return cls(directory / "model.onnx", tokenizer_file=directory / "tokenizer.json", arch=meta["arch"],
                   max_length=meta["max_length"], recipe=meta, **options)

    def settings(self) -> dict:
        """Every setting that changes a probability or a label, as the signature lists them."""
        return dict(model=self.recipe.get("name", self.arch), arch=self.arch, threshold=f"{self.threshold:.2f}",
                    max_length=self.tokenizer.max_length, refs="mean",
                    stack="logit+linear4" if self.stacker else "none", runtime=self.session.describe())

    @property
    def signature(self) -> str:
        return make_signature("ava", **self.settings())

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

    def row_logits(self, q: list, r: list, t: list) -> np.ndarray:
        """The network's logit for each single-reference row."""
        slots = [self.tokenizer.encode(a, b, truncation=self.truncation) for a, b in build_pairs(self.arch, q, r, t)]
        return self.logits_of_slots(slots)

    def predict_proba(self, questions, references, candidates) -> np.ndarray:
        """p(correct) per triple; ``references[i]`` is a string or a list (scores averaged).
        With a stacker, each row's logit is combined with its linear features first. Lists of
        different lengths are a ValueError naming the lengths."""
        n = check_lengths(questions, references, candidates)
        if n == 0:
            return np.zeros(0)
        q, r, t, owner = expand_rows(questions, references, candidates)
        logits = self.row_logits(q, r, t)
        if self.stacker is None:
            return mean_by_owner(sigmoid(logits), owner, n)
        return mean_by_owner(self.stacker.proba(logits, compute_features(q, r, t)), owner, n)

    def predict(self, questions, references, candidates) -> np.ndarray:
        return (self.predict_proba(questions, references, candidates) >= self.threshold).astype(np.int64)


def default_model_dir() -> Path:
    """The directory of the shipped model (``qascore/models/ava``)."""
    return bundled_path("ava")


def load_default_model(**options) -> OnnxAvaModel:
    """The shipped AVA model (int8 ONNX a2 + stacker, see docs/ava.md for its recipe).

    Needs the ``onnx`` extra: without onnxruntime or tokenizers it raises
    :class:`~qascore.errors.MissingExtraError` naming ``pip install "qascore[onnx]"``.
    ``options`` go to :class:`OnnxAvaModel` (``device``, ``n_threads``, ``truncation``, ...).
    """
    require_extra("onnx", *ONNX_MODULES)
    return OnnxAvaModel.from_dir(default_model_dir(), **options)
