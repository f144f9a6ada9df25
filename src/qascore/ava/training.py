"""Fine-tuning the transformer AVA models (``qascore[train]``: torch, transformers, MiniLM weights).

Recipe (the defaults): EVOUNA-NQ split by question (seed 20240, 20 % dev), AdamW, learning rate
4e-5 for the encoder and 4e-4 for new layers, linear warm-up (10 %) and decay, batch 32, 3
epochs, no early stopping on dev (dev is only reported), pairs cut at 128 tokens (counted),
word embeddings frozen (they stay the backbone's, so a checkpoint need not carry them).
"""
from __future__ import annotations

import json
import random
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from ..io import open_output
from ..runtime.batching import length_buckets, pad_rows
from ..runtime.tokenize import TextTokenizer
from .data import Triples
from .evaluate import pointwise
from ..judges.architectures import PAIR_MAX_LENGTH, build_pairs, slots_of
from ..judges.triples import check_triples, expand_rows, mean_by_owner, sigmoid

WORD_EMBEDDINGS = "embeddings.word_embeddings.weight"


@dataclass
class TrainConfig:
    arch: str = "a2"
    epochs: int = 3
    batch_size: int = 32
    lr_encoder: float = 4e-5
    lr_new: float = 4e-4
    warmup: float = 0.1
    weight_decay: float = 0.01
    dropout: float = 0.1
    max_length: int = PAIR_MAX_LENGTH
    seed: int = 13  # initialisation of new layers and dropout
    order_seed: int | None = None  # order of training batches (None: same as seed)
    freeze_word_embeddings: bool = True
    # the paper's early stopping: after each epoch from the first on, keep the weights of the
    # epoch with the best dev F1 (at p >= 0.5); off, the last epoch's weights are kept
    keep_best_on_dev: bool = False


def expand_references(triples: Triples) -> tuple[list, list, list, np.ndarray]:
    """One row per (triple, reference); returns q, r, t and the triple index of each row."""
    return expand_rows(*check_triples(triples.questions, triples.references, triples.candidates))


def encode_slots(tokenizer: TextTokenizer, arch: str, q, r, t, truncation: str) -> list:
    """Token rows per slot for rows (q, r, t)."""
    return [tokenizer.encode(first, second, truncation=truncation) for first, second in build_pairs(arch, q, r, t)]


def batch_tensors(slots: list, index: np.ndarray, pad_id: int) -> list[np.ndarray]:
    """Padded input_ids / attention_mask / token_type_ids of every slot for rows ``index``."""
    arrays = []
    for enc in slots:
        ids, mask = pad_rows(enc.ids, index, pad_id)
        types, _ = pad_rows(enc.type_ids, index, 0)
        arrays += [ids, mask, types]
    return arrays


def slot_lengths(slots: list) -> np.ndarray:
    return np.sum([enc.lengths() for enc in slots], axis=0)


def _seed_everything(seed: int) -> None:
    import torch

    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)


def predict_logits_torch(
    model, slots: list, pad_id: int, device, *, batch_size: int = 128, autocast: bool = False
) -> np.ndarray:
    """Logits of an AvaNet over encoded slots, length-bucketed, in row order."""
    import torch

    from ..runtime.batching import run_bucketed

    model.eval()

    def run_batch(index):
        tensors = [torch.from_numpy(a).to(device) for a in batch_tensors(slots, index, pad_id)]
        with (
            torch.no_grad(),
            torch.autocast(device_type=str(device).split(":")[0], dtype=torch.bfloat16, enabled=autocast),
        ):
            return model(*tensors).float().cpu().numpy()

    return run_bucketed(slot_lengths(slots), run_batch, batch_size=batch_size)


def train_transformer(
    train: Triples, dev: Triples | None, backbone_dir, config: TrainConfig, *, device: str = "auto", log=print
):
    """Fine-tune an AvaNet; returns (model, history). bf16 autocast on CUDA."""
    import torch

    from .torch_models import build_ava_net

    _seed_everything(config.seed)
    dev_name = ("cuda" if torch.cuda.is_available() else "cpu") if device == "auto" else device
    torch_device = torch.device(dev_name)
    tokenizer = TextTokenizer(Path(backbone_dir) / "tokenizer.json", max_length=config.max_length)
    q, r, t, owner = expand_references(train)
    labels = train.require_labels()[owner].astype(np.float32)
    slots = encode_slots(tokenizer, config.arch, q, r, t, truncation="allow")
    n_cut = int(np.sum([enc.truncated.sum() for enc in slots]))
    log(f"[{config.arch}] {len(q)} training rows, {n_cut} pair encodings cut at {config.max_length} tokens")

    model = build_ava_net(config.arch, backbone_dir, dropout=config.dropout).to(torch_device)
    if config.freeze_word_embeddings:
        for name, weight in model.named_parameters():
            if name.endswith(WORD_EMBEDDINGS):
                weight.requires_grad_(False)
    encoder_params = [p for p in model.encoders.parameters() if p.requires_grad]
    new_params = [p for n, p in model.named_parameters() if not n.startswith("encoders.")]
    optimizer = torch.optim.AdamW(
        [{"params": encoder_params, "lr": config.lr_encoder}, {"params": new_params, "lr": config.lr_new}],
        weight_decay=config.weight_decay,
    )
    rng = np.random.default_rng(config.seed if config.order_seed is None else config.order_seed)
    lengths = slot_lengths(slots)
    steps_per_epoch = len(length_buckets(lengths, batch_size=config.batch_size))
    total = steps_per_epoch * config.epochs
    warmup = max(1, int(total * config.warmup))
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min((s + 1) / warmup, max(0.0, (total - s) / max(1, total - warmup)))
    )
    loss_fn = torch.nn.BCEWithLogitsLoss()
    autocast = torch_device.type == "cuda"
    history = []
    best_f1, best_state = -1.0, None
    for epoch in range(config.epochs):
        model.train()
        # length buckets keep padding low; shuffling the buckets (and rows within ties) keeps SGD random
        jitter = rng.random(len(lengths)) * 8
        batches = length_buckets(lengths + jitter.astype(np.int64), batch_size=config.batch_size)
        rng.shuffle(batches)
        start, seen, loss_sum = time.time(), 0, 0.0
        for index in batches:
            tensors = [torch.from_numpy(a).to(torch_device) for a in batch_tensors(slots, index, tokenizer.pad_id)]
            target = torch.from_numpy(labels[index]).to(torch_device)
            with torch.autocast(device_type=torch_device.type, dtype=torch.bfloat16, enabled=autocast):
                logits = model(*tensors)
            loss = loss_fn(logits.float(), target)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            schedule.step()
            seen += len(index)
            loss_sum += float(loss.detach()) * len(index)
        entry = {"epoch": epoch + 1, "train_loss": loss_sum / seen, "examples_per_s": seen / (time.time() - start)}
        if dev is not None:
            probs = predict_probabilities(model, tokenizer, config.arch, dev, torch_device, autocast=autocast)
            entry["dev_accuracy"] = float(np.mean((probs >= 0.5) == (dev.labels == 1)))
            entry["dev_f1"] = pointwise(dev.labels, probs >= 0.5).f1
            if config.keep_best_on_dev and entry["dev_f1"] > best_f1:
                best_f1 = entry["dev_f1"]
                best_state = {k: v.detach().clone() for k, v in model.state_dict().items()}
        history.append(entry)
        log(f"[{config.arch}] {json.dumps(entry)}")
    if best_state is not None:
        model.load_state_dict(best_state)
    return model, tokenizer, history



def predict_probabilities(model, tokenizer, arch, triples: Triples, device, *, autocast=False) -> np.ndarray:
    """p(correct) per triple, references averaged (as the paper does for several references)."""
    q, r, t, owner = expand_references(triples)
    slots = encode_slots(tokenizer, arch, q, r, t, truncation="allow")
    logits = predict_logits_torch(model, slots, tokenizer.pad_id, device, autocast=autocast)
    return mean_by_owner(sigmoid(logits), owner, len(triples))


def average_weights(models: list):
    """A "model soup": the first model with every floating weight replaced by the mean over
    ``models`` (fine-tuned from the same initialisation, so their weights average well)."""
    import torch

    soup = models[0]
    states = [m.state_dict() for m in models]
    with torch.no_grad():
        for name, tensor in soup.state_dict().items():
            if tensor.is_floating_point():
                tensor.copy_(torch.stack([s[name].float() for s in states]).mean(0).to(tensor.dtype))
    return soup


def save_checkpoint(model, config: TrainConfig, path, *, meta: dict, half: bool = True) -> None:
    """Weights (fp16 by default, to travel small) without the frozen word embeddings, plus the
    backbone config and the training recipe."""
    import torch

    state = {}
    for name, tensor in model.state_dict().items():
        if config.freeze_word_embeddings and name.endswith(WORD_EMBEDDINGS):
            continue
        state[name] = tensor.detach().cpu().half() if half and tensor.is_floating_point() else tensor.detach().cpu()
    checkpoint = {
        "arch": config.arch,
        "backbone_config": model.encoders[0].config.to_dict(),
        "state": state,
        "train_config": asdict(config),
        "meta": meta,
    }
    with open_output(path, binary=True) as out:  # atomic: an interrupted save leaves no half checkpoint
        torch.save(checkpoint, out)


def load_checkpoint(path, backbone_dir):
    """An fp32 AvaNet from a checkpoint; frozen word embeddings come from ``backbone_dir``."""
    import torch
    from transformers import AutoConfig, AutoModel

    saved = torch.load(path, map_location="cpu", weights_only=False)
    arch = saved["arch"]
    from .torch_models import ava_net_from_config

    config = AutoConfig.from_pretrained(str(backbone_dir))
    model = ava_net_from_config(arch, config)
    state = {k: v.float() if v.is_floating_point() else v for k, v in saved["state"].items()}
    missing, unexpected = model.load_state_dict(state, strict=False)
    if unexpected:
        raise ValueError(f"{path}: unexpected weights {unexpected[:5]}")
    if missing:
        if any(not m.endswith(WORD_EMBEDDINGS) for m in missing):
            raise ValueError(f"{path}: missing weights {[m for m in missing if not m.endswith(WORD_EMBEDDINGS)][:5]}")
        backbone = AutoModel.from_pretrained(str(backbone_dir), dtype=torch.float32)
        for encoder in model.encoders:
            encoder.embeddings.word_embeddings.weight.data.copy_(backbone.embeddings.word_embeddings.weight.data)
    assert len(slots_of(arch)) == model.n_slots
    return model.eval(), saved
