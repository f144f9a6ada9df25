"""Cross-encoder / entailment solver for any user-supplied ONNX sequence-pair model.

As the paper's Q/A system does: for each choice, retrieve its best supporting passage from the article
(the lexical solver's best sentence for the choice, or the question's best sentence when no sentence
holds the choice's own words), build an assertion (question followed by the choice), and score
(premise = passage, hypothesis = assertion) with the model. Assertions whose support probability is
below ``threshold`` are eliminated; the most probable remaining one is the answer; if all are
eliminated the question is not answered.

Model contract: inputs ``input_ids`` and ``attention_mask`` (and ``token_type_ids`` if the model
declares it), int64 (batch, length); first output logits (batch, k). k == 1: support = sigmoid(logit);
k > 1: support = softmax(logits)[entailment_index].
"""
from __future__ import annotations

import numpy as np

from ...runtime import OnnxSession, TextTokenizer, run_bucketed, pad_rows
from ...validate import check_real
from .base import Solver, SolverAnswer, pick_with_margin
from .lexical import LexicalSolver


def support_probability(logits: np.ndarray, entailment_index: int) -> np.ndarray:
    logits = np.asarray(logits, dtype=np.float64)
    if logits.ndim == 1:
        logits = logits[:, None]
    if logits.ndim != 2:
        raise ValueError(f"pair model output must be (batch, k) logits, got shape {logits.shape}")
    if logits.shape[1] == 1:
        return 1.0 / (1.0 + np.exp(-logits[:, 0]))
    z = logits - logits.max(axis=1, keepdims=True)
    p = np.exp(z)
    p /= p.sum(axis=1, keepdims=True)
    return p[:, entailment_index]


class PairModelSolver(Solver):
    name = "onnx-pair"

    def __init__(self, model_path, tokenizer_path, *, entailment_index: int = -1, threshold: float = 0.5,
                 margin: float = 0.0, max_length: int = 256, batch_size: int = 32, device: str = "auto",
                 n_threads: int | None = None, retriever: LexicalSolver | None = None):
        check_real(threshold, "threshold", low=0.0, high=1.0, high_open=True)
        self.model_path = model_path
        self.tokenizer = TextTokenizer(tokenizer_path, max_length=max_length)
        self.session = OnnxSession(model_path, device=device, n_threads=n_threads)
        missing = {"input_ids", "attention_mask"} - set(self.session.input_names)
        if missing:
            raise ValueError(f"{model_path}: pair model lacks inputs {sorted(missing)}")
        self.entailment_index = entailment_index
        self.threshold = float(threshold)
        self.margin = float(margin)
        self.batch_size = batch_size
        self.retriever = retriever or LexicalSolver()

    def settings(self) -> dict:
        return {"solver": self.name, "model": str(getattr(self.model_path, "name", self.model_path)),
                "threshold": self.threshold, "entailment_index": self.entailment_index, "margin": self.margin,
                "retrieval": "lexical-best-sentence"}

    def score_pairs(self, premises: list[str], hypotheses: list[str]) -> np.ndarray:
        """Support probability of each (premise, hypothesis) row."""
        if not premises:
            return np.zeros(0)
        enc = self.tokenizer.encode(premises, hypotheses, truncation="allow")
        use_types = "token_type_ids" in self.session.input_names
        out_name = self.session.output_names[0]

        def run_batch(index):
            ids, mask = pad_rows(enc.ids, index, self.tokenizer.pad_id)
            feeds = {"input_ids": ids, "attention_mask": mask}
            if use_types:
                feeds["token_type_ids"], _ = pad_rows(enc.type_ids, index, 0)
            (logits,) = self.session.run(feeds, [out_name])
            return support_probability(logits, self.entailment_index)[:, None]

        return run_bucketed(enc.lengths(), run_batch, batch_size=self.batch_size)[:, 0]

    def solve(self, articles, questions):
        run = self.retriever.run(articles, questions)
        corpus = run.corpus
        task_article = run.task_article()
        premises, hypotheses, owner = [], [], []  # owner: global choice row
        for t, q in enumerate(run.questions):
            if not q.is_multiple_choice:
                raise ValueError(f"question {q.question_id!r}: the pair-model solver needs answer choices")
            sent_ids = None
            for c, choice in enumerate(q.choices.values()):
                row = run.task_choice_off[t] + c
                s = run.out["choice_sent"][row]
                if s < 0:
                    s = run.out["question_sent"][t]
                if s < 0:
                    continue  # nothing in the article relates to this assertion: eliminated
                if sent_ids is None:
                    sent_ids = corpus.article_sentence_ids(task_article[t])
                premises.append(corpus.sentences[sent_ids[s]])
                hypotheses.append(f"{q.text} {choice}")
                owner.append(row)
        support = np.zeros(run.task_choice_off[-1])
        support[np.asarray(owner, dtype=np.int64)] = self.score_pairs(premises, hypotheses)
        answers, t = [], 0
        for count in run.n_questions:
            row = []
            for q in run.questions[t:t + count]:
                p = support[run.task_choice_off[t]:run.task_choice_off[t + 1]]
                k, gap = pick_with_margin(np.where(p >= self.threshold, p, 0.0), self.margin)
                row.append(SolverAnswer(list(q.choices)[k] if k >= 0 else None, gap))
                t += 1
            answers.append(row)
        return answers
