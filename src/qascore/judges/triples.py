"""Rows of AVA triples: one row per (triple, reference), and the per-triple combination of its rows.

Every AVA model scores single-reference rows. A triple with several references combines its
rows' probabilities by a rule: ``max`` (the default: the references are acceptable alternatives,
so the answer is right when it matches any of them) or ``mean`` (the paper's rule, made for
sentence-long references that each restate the whole answer). The helpers here are shared by the
linear model, the ONNX models and training, and import only the text layer.
"""
from __future__ import annotations

import numpy as np

from ..text.answers import contains_answer, normalise_answer
from ..validate import as_list, check_choice, check_encodable, check_text_batch


def check_lengths(questions, references, candidates) -> int:
    """The number of triples; a ValueError naming the three lengths when they differ."""
    n = len(questions)
    if not (len(references) == n == len(candidates)):
        raise ValueError(f"questions, references and candidates differ in length "
                         f"({n}, {len(references)}, {len(candidates)})")
    return n


def check_triples(questions, references, candidates) -> tuple[list, list, list]:
    """Validate a batch of triples once at the boundary and return it as three lists.

    ``questions`` and ``candidates``: sequences of str; ``references[i]``: a str or a non-empty
    list of str. A single string where a batch is expected, a non-str item (None included) or an
    empty reference list is an error naming the argument and the row; so is a length mismatch.
    """
    questions = check_text_batch(questions, "questions")
    candidates = check_text_batch(candidates, "candidates")
    references = as_list(references, "references", "a sequence (a string or a list of strings per example)",
                         ndim=2)
    for i, refs in enumerate(references):
        if isinstance(refs, str):
            if type(refs) is not str:  # a subclass (numpy.str_) as the plain str of its characters
                references[i] = str.__str__(refs)
            continue
        if not isinstance(refs, (list, tuple)) or not all(isinstance(ref, str) for ref in refs):
            raise TypeError(f"references[{i}] must be a str or a list of str, got {type(refs).__name__}"
                            + (f" holding {', '.join(sorted({type(x).__name__ for x in refs}))}"
                               if isinstance(refs, (list, tuple)) else ""))
        if len(refs) == 0:
            raise ValueError(f"references[{i}] is empty: every triple needs at least one reference")
    check_lengths(questions, references, candidates)
    return questions, references, candidates


def check_encodable_triples(questions, references, candidates) -> None:
    """Every text of a validated batch is valid Unicode (what a model's tokenizer takes): a lone
    surrogate is an error naming the argument, the row and the position."""
    check_encodable(questions, "questions")
    check_encodable(candidates, "candidates")
    for i, refs in enumerate(references):
        check_encodable([refs] if isinstance(refs, str) else refs, f"references[{i}]")


def expand_rows(questions, references, candidates, *, distinct: bool = False) -> tuple[list, list, list, np.ndarray]:
    """One row per (triple, reference): q, r, t lists and the owning triple index of each row.

    The caller has validated the batch with :func:`check_triples` (``references[i]`` a string or
    a non-empty list of strings). ``distinct``: a reference equal to an earlier one of the same triple after
    answer normalisation (:func:`normalise_answer`) gets no row (for the ``max`` rule, where a
    repeat cannot change the result).
    """
    q, r, t, owner = [], [], [], []
    for i, refs in enumerate(references):
        refs = [refs] if isinstance(refs, str) else refs
        if distinct and len(refs) > 1:
            kept: dict = {}
            for ref in refs:
                kept.setdefault(normalise_answer(ref), ref)
            refs = list(kept.values())
        for ref in refs:
            q.append(questions[i])
            r.append(ref)
            t.append(candidates[i])
            owner.append(i)
    return q, r, t, np.asarray(owner, dtype=np.int64)


REFERENCE_RULES = ("max", "mean")


def check_rule(refs: str) -> str:
    """``refs`` itself, or a ValueError naming the rules."""
    return check_choice(refs, REFERENCE_RULES, "refs")


def combine_by_owner(values: np.ndarray, owner: np.ndarray, n: int, refs: str) -> np.ndarray:
    """Per triple, the ``max`` or the ``mean`` of its rows' ``values`` (0 for a triple without rows)."""
    if check_rule(refs) == "mean":
        return mean_by_owner(values, owner, n)
    out = np.full(n, -np.inf)
    np.maximum.at(out, owner, np.asarray(values, dtype=np.float64))
    out[np.isneginf(out)] = 0.0
    return out


def unique_rows(q: list, r: list, t: list) -> tuple[np.ndarray, np.ndarray]:
    """``(first, inverse)``: the index of the first occurrence of each distinct (q, r, t) row and,
    per row, the position of its distinct row in ``first``; a model scores ``first`` only (its
    scores do not depend on the batch, so a repeated row needs no second run)."""
    seen: dict = {}
    inverse = np.fromiter((seen.setdefault(key, len(seen)) for key in zip(q, r, t)), dtype=np.int64, count=len(q))
    first = np.full(len(seen), -1, dtype=np.int64)
    first[inverse[::-1]] = np.arange(len(q) - 1, -1, -1, dtype=np.int64)
    return first, inverse


def reference_evidence(r: list, t: list) -> np.ndarray:
    """Per row, how well its reference matches its candidate lexically: 2 when the reference is
    contained in the candidate after answer normalisation, else the share of the reference's
    tokens found in it (0 to 1)."""
    normalised: dict = {}
    score = np.empty(len(r))
    for k, (ref, cand) in enumerate(zip(r, t)):
        if cand not in normalised:
            text = normalise_answer(cand)
            normalised[cand] = (text, set(text.split()))
        text, words = normalised[cand]
        ref = normalise_answer(ref)
        tokens = ref.split()
        score[k] = 2.0 if contains_answer(text, ref) else sum(w in words for w in tokens) / max(len(tokens), 1)
    return score


def lead_rows(r: list, t: list, owner: np.ndarray) -> np.ndarray:
    """Per triple (in owner order), its row whose reference best matches the candidate lexically
    (:func:`reference_evidence`), the first such row on ties. Rows are grouped by owner, as from
    expand_rows."""
    order = np.lexsort((-reference_evidence(r, t), owner))  # by owner, then best score first, stable
    starts = np.flatnonzero(np.r_[True, owner[order][1:] != owner[order][:-1]])
    return order[starts]


def shortlist_references(references: list, candidates: list, k: int) -> list:
    """Each triple's references cut to the ``k`` with the most lexical evidence for its candidate
    (:func:`reference_evidence`; the earlier reference on ties), in their original order;
    references equal after answer normalisation count once. A triple with ``k`` or fewer
    distinct references keeps its list as given."""
    out = []
    for refs, cand in zip(references, candidates):
        if isinstance(refs, str) or len(refs) <= k:
            out.append(refs)
            continue
        distinct: dict = {}
        for ref in refs:
            distinct.setdefault(normalise_answer(ref), ref)
        kept = list(distinct.values())
        if len(kept) > k:
            best = np.argsort(-reference_evidence(kept, [cand] * len(kept)), kind="stable")[:k]
            kept = [kept[i] for i in sorted(best.tolist())]
        out.append(kept)
    return out


def mean_by_owner(values: np.ndarray, owner: np.ndarray, n: int) -> np.ndarray:
    """Per triple, the mean of its rows' ``values`` (0 for a triple without rows)."""
    return np.bincount(owner, weights=values, minlength=n) / np.maximum(np.bincount(owner, minlength=n), 1)


def sigmoid(x: np.ndarray) -> np.ndarray:
    """The logistic function in float64."""
    return 1.0 / (1.0 + np.exp(-np.asarray(x, dtype=np.float64)))
