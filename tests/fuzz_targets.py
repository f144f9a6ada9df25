"""Differential fuzz targets shared by the hypothesis tests (tests/test_fuzz.py, a short fixed
budget in CI) and the long runs (tools/fuzz.py): a realistic text generator and, per ROUGE
configuration and per sacrebleu metric/tokenizer, one batch call of qascore compared with the peer
pair by pair, with exact float equality.

Texts mix ASCII words, punctuation, digits, accented and Greek/Cyrillic letters, CJK, emoji,
whitespace variants (tabs, newlines, CR, no-break and ideographic spaces) and empty strings.
"""
from __future__ import annotations

import random
from collections.abc import Callable, Sequence

import sacrebleu
from rouge_score import rouge_scorer as peer_rouge

from qascore.compat.rouge_score import rouge_scorer as compat_rouge
from qascore.lexical import BLEU
from qascore.lexical.chrf import CHRF
from qascore.lexical.ter import TER

ASCII_WORDS = ("the", "a", "cat", "sat", "on", "mat", "running", "runs", "ran", "Paris", "capital", "France", "is",
               "of", "and", "It's", "don't", "U.S.", "e-mail", "x", "I", "ABC", "between", "generously", "happily")
PUNCTUATION = (".", ",", "!", "?", ";", ":", "'", '"', "(", ")", "-", "--", "...", "/", "&", "@", "#", "%", "$",
               "<", ">", "[", "]", "{", "}", "`", "~", "^", "*", "+", "=", "|", "\\", "_")
DIGITS = ("0", "1", "42", "3.14", "1,000", "2024", "-5", "1e3", "12:30", "99%")
UNICODE_WORDS = ("café", "naïve", "straße", "Ωmega", "привет", "mañana", "élève", "ﬁne", "İstanbul", "ǅemal",
                 "Ⅻ", "x²", "½", "ß", "ﬀ", "Å", "µ", "ǈ")
CJK = ("中文", "北京", "的", "是", "我们", "日本語", "한국어", "カタカナ", "，", "。", "、", "！", "（", "）", "「", "」", "〇")
EMOJI = ("😀", "👍🏽", "🇫🇷", "❤️", "👨‍👩‍👧", "🙂")
SPACES = (" ", " ", " ", "  ", "\t", "\n", "\r", "\r\n", "\u00a0", "\u3000", "\u2009", "\u200b", "\x0b", "\x0c")
POOLS = (ASCII_WORDS, ASCII_WORDS, ASCII_WORDS, PUNCTUATION, DIGITS, UNICODE_WORDS, CJK, EMOJI)

ROUGE_TYPES = ("rouge1", "rouge2", "rougeL", "rougeLsum")
ROUGE_CONFIGS = tuple((t, stem) for t in ROUGE_TYPES for stem in (False, True))
BLEU_TOKENIZERS = ("13a", "intl", "char", "zh", "none")
SACREBLEU_CONFIGS = tuple(f"bleu-{tok}" for tok in BLEU_TOKENIZERS) + ("chrf", "chrf++", "ter")


def random_text(rng: random.Random, max_tokens: int = 30) -> str:
    """One text: empty 5% of the time, else tokens from the pools joined by whitespace variants
    (sometimes glued with no space)."""
    if rng.random() < 0.05:
        return ""
    parts = []
    for _ in range(rng.randint(1, max_tokens)):
        parts.append(rng.choice(rng.choice(POOLS)))
        parts.append(rng.choice(SPACES) if rng.random() < 0.9 else "")
    return "".join(parts[:-1] if rng.random() < 0.7 else parts)


def random_pairs(seed: int, n: int, max_tokens: int = 30) -> tuple[list[str], list[str]]:
    """``n`` (prediction, reference) pairs; 1 in 4 references shares most of its prediction's words."""
    rng = random.Random(seed)
    preds, refs = [], []
    for _ in range(n):
        pred = random_text(rng, max_tokens)
        if rng.random() < 0.25 and pred:
            words = pred.split()
            rng.shuffle(words)
            ref = " ".join(words[: max(1, len(words) - rng.randint(0, 3))])
        else:
            ref = random_text(rng, max_tokens)
        preds.append(pred)
        refs.append(ref)
    return preds, refs


Mismatch = tuple[int, str, str, object, object]  # (row, prediction, reference, ours, peer's)


def rouge_mismatches(rouge_type: str, use_stemmer: bool, preds: Sequence[str], refs: Sequence[str]) -> list[Mismatch]:
    """qascore's rouge_score drop-in (one batch call) against rouge-score, pair by pair: precision,
    recall and F must be equal floats."""
    ours = compat_rouge.RougeScorer([rouge_type], use_stemmer=use_stemmer).score_batch(list(refs), list(preds))
    peer = peer_rouge.RougeScorer([rouge_type], use_stemmer=use_stemmer)
    out = []
    for i, (pred, ref) in enumerate(zip(preds, refs)):
        want = tuple(peer.score(ref, pred)[rouge_type])
        got = tuple(ours[i][rouge_type])
        if got != want:
            out.append((i, pred, ref, got, want))
    return out


def _sacrebleu_pair(config: str) -> tuple[Callable, Callable]:
    """(ours, peer's) sentence-score functions of one hypothesis and one reference."""
    if config.startswith("bleu-"):
        tok = config[5:]
        ours_metric = BLEU(tokenize=tok, effective_order=True)
        peer_metric = sacrebleu.BLEU(tokenize=tok, effective_order=True)
    elif config in ("chrf", "chrf++"):
        order = 2 if config == "chrf++" else 0
        ours_metric, peer_metric = CHRF(word_order=order), sacrebleu.CHRF(word_order=order)
    else:
        ours_metric, peer_metric = TER(), sacrebleu.TER()
    return ours_metric, peer_metric


def sacrebleu_mismatches(config: str, hyps: Sequence[str], refs: Sequence[str]) -> list[Mismatch]:
    """Sentence scores of one batch call and of one call per pair (the one-segment road) against
    sacrebleu's ``sentence_score`` of each pair, and the corpus score of the batch against
    sacrebleu's ``corpus_score``: equal floats."""
    ours, peer = _sacrebleu_pair(config)
    got = ours.sentence_scores(list(hyps), [[r] for r in refs])
    out: list[Mismatch] = []
    for i, (hyp, ref) in enumerate(zip(hyps, refs)):
        want = peer.sentence_score(hyp, [ref]).score
        if float(got[i]) != want:
            out.append((i, hyp, ref, float(got[i]), want))
        one = ours.sentence_score(hyp, [ref])["score"]
        if one != want:
            out.append((i, hyp, ref, one, want))
    if config.startswith("bleu-"):  # corpus BLEU without effective order, as sacrebleu's default
        tok = config[5:]
        corpus_got = BLEU(tokenize=tok).corpus_score(list(hyps), [[r] for r in refs])["score"]
        corpus_want = sacrebleu.BLEU(tokenize=tok).corpus_score(list(hyps), [list(refs)]).score
    else:
        corpus_got = ours.corpus_score(list(hyps), [[r] for r in refs])["score"]
        corpus_want = peer.corpus_score(list(hyps), [list(refs)]).score
    if corpus_got != corpus_want:
        out.append((-1, "<corpus>", "<corpus>", corpus_got, corpus_want))
    return out
