"""The transformer AVA networks in torch (``qascore[train]`` only; inference runs their ONNX export).

All return one logit per row: p(correct) = sigmoid(logit). Pair representations are the mean of
the encoder's token states over real tokens (the all-MiniLM-L6-v2 pooling).
The shipped a1 and a2 share one encoder across their two pairs (the paper fine-tunes one
instance per pair) so the shipped model stays one MiniLM (<= 25 MB int8); a0 and every paper
configuration (``A1((r,q+t),(t,q+r))``, ...) have one encoder per pair, and A2 one peer block per
pair, as the paper has them (:func:`qascore.judges.architectures.architecture`).
"""
from __future__ import annotations

import math

import torch
from torch import nn

from ..judges.architectures import architecture


def masked_mean(states: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    weights = mask.unsqueeze(-1).to(states.dtype)
    return (states * weights).sum(1) / weights.sum(1).clamp(min=1e-9)


class PeerAttention(nn.Module):
    """One decoding step: token states of a pair attend to the token states of its peer pair,
    then a feed-forward block (post-norm, as BERT). Plain matmuls so the ONNX export is simple."""

    def __init__(self, hidden: int, heads: int, ffn: int, dropout: float = 0.1) -> None:
        super().__init__()
        self.heads = heads
        self.query = nn.Linear(hidden, hidden)
        self.key = nn.Linear(hidden, hidden)
        self.value = nn.Linear(hidden, hidden)
        self.out = nn.Linear(hidden, hidden)
        self.norm1 = nn.LayerNorm(hidden, eps=1e-12)
        self.ffn = nn.Sequential(nn.Linear(hidden, ffn), nn.GELU(), nn.Linear(ffn, hidden))
        self.norm2 = nn.LayerNorm(hidden, eps=1e-12)
        self.dropout = nn.Dropout(dropout)

    def _split(self, x: torch.Tensor) -> torch.Tensor:
        b, n, h = x.shape
        return x.view(b, n, self.heads, h // self.heads).transpose(1, 2)

    def forward(self, states, peer, peer_mask):
        q, k, v = self._split(self.query(states)), self._split(self.key(peer)), self._split(self.value(peer))
        scores = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
        scores = scores + (1.0 - peer_mask[:, None, None, :].to(scores.dtype)) * -10000.0
        attended = (scores.softmax(-1) @ v).transpose(1, 2).reshape(states.shape)
        x = self.norm1(states + self.dropout(self.out(attended)))
        return self.norm2(x + self.dropout(self.ffn(x)))


class AvaNet(nn.Module):
    """Any :func:`qascore.judges.architectures.architecture`: a0 / a1 / a2 or a paper configuration."""

    def __init__(self, arch: str, encoders: list, dropout: float = 0.1) -> None:
        super().__init__()
        spec = architecture(arch)
        if len(encoders) != spec.n_encoders:
            raise ValueError(f"{arch}: {spec.n_encoders} encoder(s) expected, got {len(encoders)}")
        self.arch = arch
        self.n_slots = len(spec.slots)
        self.encoders = nn.ModuleList(encoders)  # one per slot, or one shared by all slots
        config = encoders[0].config
        hidden = config.hidden_size

        def peer_block():
            return PeerAttention(hidden, config.num_attention_heads, config.intermediate_size, dropout)

        # a2 keeps its one shared block under the name `peer` (so its checkpoints still load)
        self.peer = peer_block() if spec.peer == "shared" else None
        self.peers = nn.ModuleList([peer_block(), peer_block()]) if spec.peer == "separate" else None
        self.dropout = nn.Dropout(dropout)
        self.head = nn.Linear(hidden * self.n_slots, 1)

    def forward(self, *inputs):
        """inputs: input_ids_0, attention_mask_0, token_type_ids_0, input_ids_1, ... (all int64)."""
        groups = [inputs[3 * k : 3 * k + 3] for k in range(self.n_slots)]
        masks = [g[1] for g in groups]
        if len(self.encoders) == 1 and self.n_slots > 1:
            # one encoder call over all slots stacked on the batch axis: the exported graph then
            # holds the shared weights once (two calls would duplicate every folded weight)
            width = max(g[0].shape[1] for g in groups)
            stacked = [
                torch.cat([nn.functional.pad(g[j], (0, width - g[j].shape[1])) for g in groups]) for j in range(3)
            ]
            hidden = self.encoders[0](
                input_ids=stacked[0], attention_mask=stacked[1], token_type_ids=stacked[2]
            ).last_hidden_state
            states = list(hidden.chunk(self.n_slots, dim=0))
            masks = list(stacked[1].chunk(self.n_slots, dim=0))
        else:
            states = [
                enc(input_ids=g[0], attention_mask=g[1], token_type_ids=g[2]).last_hidden_state
                for enc, g in zip(self.encoders, groups)
            ]
        if self.peer is not None or self.peers is not None:
            first, second = (self.peer, self.peer) if self.peers is None else tuple(self.peers)
            states = [first(states[0], states[1], masks[1]), second(states[1], states[0], masks[0])]
        pooled = torch.cat([masked_mean(s, m) for s, m in zip(states, masks)], dim=-1)
        return self.head(self.dropout(pooled)).squeeze(-1)


def build_ava_net(arch: str, backbone_dir, *, dropout: float = 0.1) -> AvaNet:
    """An AvaNet whose encoders start from the MiniLM (or any BERT) checkpoint in ``backbone_dir``."""
    from transformers import AutoModel

    encoders = [
        AutoModel.from_pretrained(str(backbone_dir), attn_implementation="eager", dtype=torch.float32)
        for _ in range(architecture(arch).n_encoders)
    ]
    return AvaNet(arch, encoders, dropout)


def ava_net_from_config(arch: str, config) -> AvaNet:
    """An AvaNet with freshly initialised encoders of ``config`` (to load a saved state into)."""
    from transformers import AutoModel

    config._attn_implementation = "eager"
    return AvaNet(arch, [AutoModel.from_config(config) for _ in range(architecture(arch).n_encoders)])
