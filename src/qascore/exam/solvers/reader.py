"""The Q/A reader (``--solver qa``): a trained transformer reads the article and picks the sentence
that answers the question, the paper's kind of Q/A system (a model trained to answer questions
from a given text) rather than term matching.

Model: a sentence-selection network, p(sentence answers question) from the pair (question,
sentence), i.e. an AVA network of the single configuration ``A0(q,t)``, run by the AVA runtime
(:class:`qascore.judges.onnx.OnnxAvaModel`). The shipped one (``qascore/models/exam_reader``) is
MiniLM-L6 fine-tuned on TREC-QA answer-sentence selection; its ``model.json`` holds the recipe.

- Free-text question: every sentence of the article is read; the most probable one answers if its
  probability reaches ``threshold`` (its paragraph, ``free_text="paragraph"``, or the sentence
  alone, ``free_text="sentence"``), else the reader abstains; the judge then grades the answer.
  With ``free_text="any-paragraph"`` the judge reads every paragraph of the article itself (the
  lexical solver's answers), so the reader reads only the multiple-choice questions.
- Multiple choice (as the paper's Q/A system: evidence per choice, unsupported choices
  eliminated): each choice's evidence is the article sentence that best matches it (the lexical
  solver's retrieval; a choice no sentence holds is eliminated); a choice's support is the
  reader's probability that its evidence answers the question; the most supported choice at or
  above ``threshold`` answers. Choices whose evidence is the same sentence tie on support; the
  lexical solver's choice score breaks the tie.

A (question, sentence) pair is read once per call however many systems' articles hold it.
"""
from __future__ import annotations

import numpy as np

from ...judges.architectures import slots_of
from ...judges.onnx import OnnxAvaModel
from ...judges.triples import sigmoid
from ...models import bundled_path
from ...validate import check_choice, check_real
from .base import Solver, SolverAnswer, pick_with_margin
from .lexical import FREE_TEXT_ANSWERS, LexicalSolver

READER_SLOTS = (("q", "t"),)


def default_reader_dir():
    return bundled_path("exam_reader")


class ReaderSolver(Solver):
    name = "qa"

    def __init__(self, model_dir=None, *, threshold: float | None = None, margin: float = 0.0,
                 free_text: str = "any-paragraph", device: str = "auto", n_threads: int | None = None,
                 batch_size: int = 64) -> None:
        self.model = OnnxAvaModel.from_dir(default_reader_dir() if model_dir is None else model_dir, device=device,
                                           n_threads=n_threads, batch_size=batch_size, truncation="allow")
        if slots_of(self.model.arch) != READER_SLOTS:
            raise ValueError(f"{model_dir}: a reader reads (question, sentence) pairs, i.e. architecture A0(q,t); "
                             f"this model is {self.model.arch}")
        self.threshold = float(self.model.threshold if threshold is None else threshold)
        check_real(self.threshold, "threshold", low=0.0, high=1.0, high_open=True)
        self.margin = float(margin)
        self.free_text = check_choice(free_text, FREE_TEXT_ANSWERS, "free_text")
        self.retriever = LexicalSolver(margin=margin, free_text=free_text, n_jobs=n_threads)

    def settings(self) -> dict:
        return {"solver": self.name, "model": self.model.recipe.get("name", str(self.model.model_path)),
                "threshold": self.threshold, "margin": self.margin, "free_text": self.free_text}

    def answer_probability(self, questions: list[str], sentences: list[str]) -> np.ndarray:
        """p(sentence answers question) of each pair."""
        if not questions:
            return np.zeros(0)
        return sigmoid(self.model.row_logits(questions, [""] * len(questions), sentences))

    def _pick(self, support: np.ndarray, lexical: np.ndarray) -> tuple[int, float]:
        """The most supported choice at or above the threshold (ties broken by the lexical score)."""
        eligible = np.where(support >= self.threshold, support, 0.0)
        tied = (eligible > 0) & (eligible == eligible.max())
        if tied.sum() > 1:  # one evidence sentence for several choices: their words decide
            return pick_with_margin(np.where(tied, lexical, 0.0), self.margin)
        return pick_with_margin(eligible, self.margin)

    def solve(self, articles, questions):
        run = self.retriever.run(articles, questions)
        corpus, out = run.corpus, run.out
        pairs: dict[tuple[str, int], int] = {}  # (question text, global sentence) -> pair index

        def pair(text: str, sentence: int) -> int:
            return pairs.setdefault((text, sentence), len(pairs))

        plans = []  # per task: ("text", [(pair, sentence)]) or ("choice", [pair or -1 per choice])
        task_article = run.task_article()
        for t, q in enumerate(run.questions):
            sentence_ids = corpus.article_sentence_ids(int(task_article[t]))
            if q.is_multiple_choice:
                rows = []
                for row in range(run.task_choice_off[t], run.task_choice_off[t + 1]):
                    s = out["choice_sent"][row]
                    rows.append(pair(q.text, int(sentence_ids[s])) if s >= 0 else -1)
                plans.append(("choice", rows))
            elif self.free_text == "any-paragraph":  # the judge reads every paragraph: nothing to read here
                plans.append(("lexical", []))
            else:
                plans.append(("text", [(pair(q.text, int(s)), int(s)) for s in sentence_ids]))
        lexical_answers = [a for row in self.retriever.answers(run) for a in row] \
            if self.free_text == "any-paragraph" else []
        keys = list(pairs)
        prob = self.answer_probability([k[0] for k in keys], [corpus.sentences[k[1]] for k in keys]) if keys \
            else np.zeros(0)
        answers, t = [], 0
        for count in run.n_questions:
            row = []
            for q in run.questions[t:t + count]:
                kind, plan = plans[t]
                if kind == "lexical":
                    row.append(lexical_answers[t])
                elif kind == "choice":
                    support = np.asarray([prob[p] if p >= 0 else 0.0 for p in plan])
                    lexical = out["choice_score"][run.task_choice_off[t]:run.task_choice_off[t + 1]]
                    k, gap = self._pick(support, lexical)
                    row.append(SolverAnswer(list(q.choices)[k] if k >= 0 else None, gap))
                elif plan:
                    best = max(plan, key=lambda ps: prob[ps[0]])  # first in reading order on ties
                    p, sentence = float(prob[best[0]]), best[1]
                    row.append(SolverAnswer(None, p, corpus.sentences[sentence] if self.free_text == "sentence"
                                            else corpus.paragraph_of(sentence)) if p >= self.threshold
                               else SolverAnswer(None, p))
                else:
                    row.append(SolverAnswer(None, 0.0))
                t += 1
            answers.append(row)
        return answers
