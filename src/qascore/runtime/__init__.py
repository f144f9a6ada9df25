"""ONNX Runtime sessions, tokenizers, batching and device choice for every transformer model.

- :class:`OnnxSession`: a session on ``device="auto" | "cpu" | "cuda"`` that checks the providers
  it really got, with thread settings, input checks and io-binding on CUDA.
- :class:`TextTokenizer`: ``tokenizers`` encoding of texts and text pairs, truncation reported.
- :func:`length_buckets` / :func:`run_bucketed`: length-sorted dynamic batches, order restored.
- :class:`SentenceEncoder`: mean-pooled, L2-normalised sentence vectors (all-MiniLM-L6-v2).

Inference needs only onnxruntime (or onnxruntime-gpu) and tokenizers, never torch.
"""
from .batching import length_buckets, pad_rows, run_bucketed
from .embedding import SentenceEncoder, default_minilm_path, mean_pool_normalise
from .session import (
    DEVICES,
    DeviceUnavailableError,
    ForkedSessionError,
    ModelFileError,
    ModelInputError,
    OnnxSession,
    available_devices,
    check_model_file,
)
from .tokenize import Encoded, TextTokenizer, TruncationError, TruncationWarning

__all__ = [
    "DEVICES", "DeviceUnavailableError", "Encoded", "ForkedSessionError", "ModelFileError", "ModelInputError",
    "OnnxSession", "SentenceEncoder", "TextTokenizer", "TruncationError", "TruncationWarning", "available_devices",
    "check_model_file", "default_minilm_path", "length_buckets", "mean_pool_normalise", "pad_rows",
    "run_bucketed",
]
