"""Which AVA model a name means: the one place that turns ``default`` / ``linear`` / a path into a
model with ``predict_proba(questions, references, candidates)``, ``threshold`` and ``signature``."""
from __future__ import annotations

from pathlib import Path

from ..errors import require_extra
from .linear import LinearAva, default_linear_model
from .transformer import ONNX_MODULES, OnnxAvaModel, load_default_model

MODEL_SPECS = "'default' (the shipped transformer model), 'linear' (the shipped linear model), " \
              "or a model directory / linear .json"


def is_onnx_spec(spec: str) -> bool:
    """True when ``spec`` names an ONNX model (``default`` or a model directory)."""
    return spec != "linear" and not str(spec).endswith(".json")


def load_model(spec: str = "default", *, refs: str = "max", device: str = "auto",
               n_threads: int | None = None) -> LinearAva | OnnxAvaModel:
    """The model ``spec`` names: ``default`` (the shipped int8 ONNX model), ``linear`` (the shipped
    linear model), a linear model ``.json`` file, or an ONNX model directory, under the reference
    rule ``refs`` (``max`` or ``mean``) with that rule's tuned threshold.

    An ONNX model needs the ``onnx`` extra (:class:`~qascore.errors.MissingExtraError` otherwise);
    ``device`` and ``n_threads`` apply to ONNX models only.
    """
    if not is_onnx_spec(spec):
        return default_linear_model(refs) if spec == "linear" else LinearAva.load(Path(spec), refs=refs)
    require_extra("onnx", *ONNX_MODULES)
    if spec == "default":
        return load_default_model(device=device, n_threads=n_threads, refs=refs)
    return OnnxAvaModel.from_dir(Path(spec), device=device, n_threads=n_threads, refs=refs)
