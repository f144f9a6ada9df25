"""Which text pairs each transformer AVA architecture reads (shared by training and ONNX inference).

Slots follow the paper (Vu and Moschitti's notation: q question, r reference, t candidate, and
"q ⊕ t" the string concatenation):
- a0: (q, r), (q, t), (r, t), each through its own encoder, representations concatenated;
- a1: (r, q ⊕ t), (t, q ⊕ r) through one shared encoder, concatenated;
- a2: the a1 pairs, then a peer-attention step in which each pair's token states attend to the
  other pair's before pooling.
"""
from __future__ import annotations

ARCHITECTURES = ("a0", "a1", "a2")
PAIR_MAX_LENGTH = 128

_SLOTS = {
    "a0": (("q", "r"), ("q", "t"), ("r", "t")),
    "a1": (("r", "qt"), ("t", "qr")),
    "a2": (("r", "qt"), ("t", "qr")),
}


def slots_of(arch: str) -> tuple:
    if arch not in _SLOTS:
        raise ValueError(f"unknown AVA architecture {arch!r}; expected one of {ARCHITECTURES}")
    return _SLOTS[arch]


def input_names(arch: str) -> list[str]:
    """ONNX input names: input_ids_k, attention_mask_k, token_type_ids_k for each slot k."""
    names = []
    for k in range(len(slots_of(arch))):
        names += [f"input_ids_{k}", f"attention_mask_{k}", f"token_type_ids_{k}"]
    return names


def _text(part: str, q: str, r: str, t: str) -> str:
    pieces = {"q": q, "r": r, "t": t}
    return " ".join(pieces[c] for c in part if pieces[c])


def build_pairs(arch: str, questions, references, candidates) -> list[tuple[list[str], list[str]]]:
    """For each slot, the (first texts, second texts) of every row."""
    out = []
    for first, second in slots_of(arch):
        rows = list(zip(questions, references, candidates))
        out.append(([_text(first, *row) for row in rows], [_text(second, *row) for row in rows]))
    return out
