"""AVA's four similarity features of a (question, reference, candidate) row, read by the linear
model and by the stacker of the transformer models.

Computed by the compiled kernel ``qascore._kernels.ava_features`` over token ids of the ``rouge``
tokeniser (lowercase, runs of [a-z0-9]): x1 = is-included(s, t) (a short answer s occurs as a
contiguous token run in t), x2 = sim-text(r, t), x3 = sim-text(r, q), x4 = sim-text(q, t),
sim-text(a, b) = 2|A & B| / (|A| + |B|) over token sets (0 for two empty texts). The short
answers s of a row are its ``short_answers`` when given (EVOUNA's '/'-separated gold
alternatives), else its reference itself.
"""
from __future__ import annotations

import numpy as np

from .._parallel import pool_threads, resolve_n_jobs
from ..text import Vocabulary, get_tokenizer
from .triples import check_lengths

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
    """(n, 4) float64 features for single-reference rows (``references[i]`` a string).

    ``short_answers[i]`` (a list of strings) replaces the reference in x1 when given.

    Example:

        >>> compute_features(["capital of France?"], ["Paris"], ["It is Paris."]).tolist()
        [[1.0, 0.5, 0.0, 0.0]]

    :param questions: the questions.
    :param references: one reference string per question.
    :param candidates: one candidate answer per question.
    :param short_answers: optional lists of short answers that replace the reference in x1.
    :param n_jobs: tokenising threads (None: the library's default).
    :returns: an (n, 4) float64 array: is_included_s_t, sim_text_r_t, sim_text_r_q, sim_text_q_t.
    :raises ValueError: for lists of different lengths.
    """
    n = check_lengths(questions, references, candidates)
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
    return _kernel()(q.ids, q.offsets, r.ids, r.offsets, t.ids, t.offsets, s.ids, s.offsets, group, len(vocab),
                     pool_threads(threads))
