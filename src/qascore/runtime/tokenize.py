"""Tokenisation with Hugging Face ``tokenizers`` into unpadded id rows, with truncation reported.

Texts longer than the model's window are cut (longest-first for pairs, as BERT training does),
and every cut is counted and named: ``truncation="warn"`` warns with the count and the first
indices, ``"error"`` raises, ``"allow"`` only records it in :attr:`Encoded.truncated`.
"""
from __future__ import annotations

import re
import sys
import warnings
from dataclasses import dataclass
from collections.abc import Sequence

import numpy as np

from ..errors import QascoreError
from ..validate import check_same_length, check_text_batch
from .session import check_model_file

TRUNCATION_POLICIES = ("warn", "error", "allow")


class TruncationError(QascoreError, ValueError):
    """A text did not fit the model's window and truncation='error' was asked for."""


class TruncationWarning(UserWarning):
    """Some texts were cut to the model's window."""


@dataclass(frozen=True)
class Encoded:
    """Token rows of a batch before padding: ``ids[i]`` and ``type_ids[i]`` are int64 arrays,
    ``truncated[i]`` whether row i was cut to the window.

    Example:

        >>> from qascore.models import bundled_path
        >>> from qascore.runtime import TextTokenizer
        >>> encoded = TextTokenizer(bundled_path("minilm", "tokenizer.json"), max_length=8).encode(
        ...     ["a cat sat", "a sentence far too long to fit in eight tokens"], truncation="allow")
        >>> len(encoded), encoded.lengths().tolist(), encoded.truncated.tolist()
        (2, [5, 8], [False, True])
    """

    ids: list
    type_ids: list
    truncated: np.ndarray  # bool, one per row

    def __len__(self) -> int:
        return len(self.ids)

    def lengths(self) -> np.ndarray:
        return np.fromiter((len(row) for row in self.ids), dtype=np.int64, count=len(self.ids))


def _tokenizers():
    try:
        import tokenizers
    except ImportError as exc:  # pragma: no cover - depends on the extra installed
        raise ImportError("qascore's transformer models need tokenizers: pip install 'qascore[onnx]'") from exc
    return tokenizers


class TextTokenizer:
    """A ``tokenizer.json`` with our own truncation bookkeeping and no padding (batching pads).

    ``encode(texts, pairs=None, *, truncation="warn")`` encodes texts, or (text, pair) rows; a text
    longer than ``max_length`` tokens is cut (longest first for pairs) and the ``truncation``
    policy says what follows: ``warn`` (a :class:`TruncationWarning` with the count), ``error``
    (:class:`TruncationError`) or ``allow``.

    Example:

        >>> from qascore.models import bundled_path
        >>> from qascore.runtime import TextTokenizer
        >>> tok = TextTokenizer(bundled_path("minilm", "tokenizer.json"), max_length=8)
        >>> tok.encode(["a cat sat"]).ids[0].tolist()  # [CLS] a cat sat [SEP]
        [101, 1037, 4937, 2938, 102]
        >>> pair = tok.encode(["who?"], ["me"])
        >>> pair.ids[0].tolist(), pair.type_ids[0].tolist()
        ([101, 2040, 1029, 102, 2033, 102], [0, 0, 0, 0, 1, 1])
        >>> tok.encode(["a sentence far too long to fit in eight tokens"], truncation="error")
        Traceback (most recent call last):
        ...
        qascore.runtime.tokenize.TruncationError: 1 of 1 inputs exceed 8 tokens and were truncated (first indices: [0])

    :param tokenizer_file: a Hugging Face ``tokenizer.json``.
    :param max_length: the model's window in tokens (an int >= 4).
    :raises ValueError: for a ``max_length`` that is not an int >= 4, and from ``encode`` for an
        unknown policy or texts and pairs of different lengths.
    :raises ModelFileError: for a missing tokenizer file.
    :raises ImportError: when ``tokenizers`` is not installed (the ``onnx`` extra).
    """

    def __init__(self, tokenizer_file, *, max_length: int) -> None:
        if not isinstance(max_length, int) or max_length < 4:
            raise ValueError(f"max_length must be an int >= 4, got {max_length!r}")
        path = check_model_file(tokenizer_file, "tokenizer")
        self.tokenizer_file = path
        self.max_length = max_length
        self._tok = _tokenizers().Tokenizer.from_file(str(path))
        self._tok.no_padding()
        self._tok.enable_truncation(max_length, strategy="longest_first")
        self.pad_id = self._tok.token_to_id("[PAD]") or 0

    def encode(self, texts: Sequence[str], pairs: Sequence[str] | None = None, *, truncation: str = "warn") -> Encoded:
        """Encode texts, or (text, pair) rows when ``pairs`` is given; empty strings are valid."""
        if truncation not in TRUNCATION_POLICIES:
            raise ValueError(f"truncation must be one of {TRUNCATION_POLICIES}, got {truncation!r}")
        texts = check_text_batch(texts, "texts")
        if pairs is not None:
            pairs = check_text_batch(pairs, "pairs")
            check_same_length(texts, pairs, "texts", "pairs")
            batch = self._tok.encode_batch(list(zip(texts, pairs)))
        else:
            batch = self._tok.encode_batch(texts)
        ids = [np.asarray(e.ids, dtype=np.int64) for e in batch]
        type_ids = [np.asarray(e.type_ids, dtype=np.int64) for e in batch]
        truncated = np.fromiter((len(e.overflowing) > 0 for e in batch), dtype=bool, count=len(batch))
        report_truncation(truncated, self.max_length, truncation)
        return Encoded(ids, type_ids, truncated)


def report_truncation(truncated: np.ndarray, max_length: int, policy: str) -> None:
    """Apply a truncation policy to a mask of cut rows (never silent unless 'allow')."""
    n = int(truncated.sum())
    if n == 0 or policy == "allow":
        return
    first = np.flatnonzero(truncated)[:5].tolist()
    message = f"{n} of {len(truncated)} inputs exceed {max_length} tokens and were truncated (first indices: {first})"
    if policy == "error":
        raise TruncationError(message)
    warnings.warn(message, TruncationWarning, stacklevel=3)


class TruncationCount:
    """Collects the :class:`TruncationWarning`s raised inside a ``with`` block (any thread of this
    process) instead of letting them print, and :meth:`report` says, once, how many inputs were cut
    to the window: a command's one line in place of a warning per batch."""

    _PATTERN = re.compile(r"^(\d+) of (\d+) inputs exceed (\d+) tokens")

    def __init__(self) -> None:
        self.cut = self.seen = 0
        self.window: int | None = None
        self._catcher = warnings.catch_warnings(record=True)

    def __enter__(self) -> TruncationCount:
        self._records = self._catcher.__enter__()
        warnings.simplefilter("always", TruncationWarning)
        return self

    def __exit__(self, *exc) -> None:
        self._catcher.__exit__(*exc)
        for record in self._records or []:
            if not issubclass(record.category, TruncationWarning):
                warnings.warn_explicit(record.message, record.category, record.filename, record.lineno)
                continue
            match = self._PATTERN.match(str(record.message))
            if match:
                self.cut += int(match.group(1))
                self.seen += int(match.group(2))
                self.window = int(match.group(3))

    def report(self, command: str, stream=None) -> None:
        if self.cut:
            print(f"qascore {command}: {self.cut} model inputs were longer than the {self.window}-token window and "
                  f"were cut to it", file=stream if stream is not None else sys.stderr)
