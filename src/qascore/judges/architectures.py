"""Which text pairs each transformer AVA architecture reads (shared by training and ONNX inference).

Slots follow the paper (Vu and Moschitti's notation: q question, r reference, t candidate, and
"q ⊕ t" the string concatenation, written ``q+t`` here):
- a0: (q, r), (q, t), (r, t), each through its own encoder, representations concatenated;
- a1: (r, q ⊕ t), (t, q ⊕ r) through one shared encoder, concatenated;
- a2: the a1 pairs, then a peer-attention step in which each pair's token states attend to the
  other pair's before pooling (one peer block shared by both pairs).

Besides these three shipped names, every configuration of the paper's Tables 3 and 4 is named by
its id in the paper's notation, e.g. ``A0(q,t)``, ``A0(P0)``, ``A1((r,q+t),(t,q+r))``, ``A1(P1)``,
``A2((r,q+t),(t,q+r))``: one encoder instance per pair, fine-tuned together, and for A2 one
peer-attention instance per pair, as the paper has them (:data:`PAPER_CONFIGURATIONS`).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

ARCHITECTURES = ("a0", "a1", "a2")
PAIR_MAX_LENGTH = 128

_P0 = (("q", "r"), ("q", "t"), ("r", "t"))
_P1 = (("q", "rt"), ("r", "qt"), ("t", "qr"))
_SLOTS = {
    "a0": _P0,
    "a1": (("r", "qt"), ("t", "qr")),
    "a2": (("r", "qt"), ("t", "qr")),
}

# The configurations of the paper's Table 4, in its order.
PAPER_CONFIGURATIONS = (
    "A0(q,r)", "A0(r,t)", "A0(q,t)", "A0(P0)",
    "A1(q,r+t)", "A1(r,q+t)", "A1(t,q+r)",
    "A1((q,r+t),(t,q+r))", "A1((r,q+t),(t,q+r))", "A1((r,q+t),(q,r+t))", "A1(P1)",
    "A2((r,q+t),(t,q+r))",
)


@dataclass(frozen=True)
class Architecture:
    """What a network reads and how its parts are shared.

    ``slots``: the (first, second) texts of each pair, each a string of the letters q, r, t
    (several letters: their texts joined by a space); ``separate_encoders``: one encoder instance
    per pair (else one shared); ``peer``: None, ``"shared"`` (one peer block for both pairs) or
    ``"separate"`` (one per pair)."""

    name: str
    slots: tuple
    separate_encoders: bool
    peer: str | None = None

    @property
    def n_encoders(self) -> int:
        return len(self.slots) if self.separate_encoders else 1


_PAIR = re.compile(r"\(([qrt](?:\+[qrt])*),([qrt](?:\+[qrt])*)\)")


def _parse_pairs(body: str, family: str, name: str) -> tuple:
    if body == "P0" and family == "A0":
        return _P0
    if body == "P1" and family == "A1":
        return _P1
    if not body.startswith("("):  # one pair: A0(q,t)
        body = f"({body})"
    pairs, pos = [], 0
    while pos < len(body):
        match = _PAIR.match(body, pos)
        if match is None:
            raise ValueError(f"AVA configuration {name!r}: cannot read a pair at {body[pos:]!r}")
        pairs.append(tuple(part.replace("+", "") for part in match.groups()))
        pos = match.end()
        if pos < len(body):
            if body[pos] != ",":
                raise ValueError(f"AVA configuration {name!r}: expected ',' between pairs at {body[pos:]!r}")
            pos += 1
    for first, second in pairs:
        if len(set(first + second)) != len(first + second):
            raise ValueError(f"AVA configuration {name!r}: a text appears twice in the pair ({first}, {second})")
        if family == "A0" and (len(first) > 1 or len(second) > 1):
            raise ValueError(f"AVA configuration {name!r}: A0 pairs single texts (A1 concatenates them)")
        if family != "A0" and len(first + second) != 3:
            raise ValueError(f"AVA configuration {name!r}: an {family} pair holds q, r and t ({first}, {second})")
    if len(set(pairs)) != len(pairs):
        raise ValueError(f"AVA configuration {name!r}: a pair is listed twice")
    return tuple(pairs)


@lru_cache(maxsize=64)
def architecture(name: str) -> Architecture:
    """The :class:`Architecture` of a shipped name (a0, a1, a2) or a paper id (``A1(r,q+t)``)."""
    if name in _SLOTS:
        return Architecture(name, _SLOTS[name], name == "a0", "shared" if name == "a2" else None)
    compact = name.replace(" ", "")
    match = re.fullmatch(r"(A[012])\((.*)\)", compact)
    if match is None:
        raise ValueError(
            f"unknown AVA architecture {name!r}; expected one of {ARCHITECTURES} or a paper configuration such as "
            f"{', '.join(PAPER_CONFIGURATIONS[:2])}, ... (see qascore.judges.architectures.PAPER_CONFIGURATIONS)"
        )
    family, body = match.groups()
    pairs = _parse_pairs(body, family, name)
    if family == "A2" and len(pairs) != 2:
        raise ValueError(f"AVA configuration {name!r}: peer attention (A2) joins exactly two pairs")
    return Architecture(compact, pairs, True, "separate" if family == "A2" else None)


def file_stem(arch: str) -> str:
    """A file name for an architecture's checkpoint or directory: ``A0(q,t)`` -> ``A0_q_t``."""
    return "".join(c if c.isalnum() else "_" for c in arch).strip("_")


def slots_of(arch: str) -> tuple:
    return architecture(arch).slots


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
