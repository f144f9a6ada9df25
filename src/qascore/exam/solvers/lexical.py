"""Lexical multiple-choice solver: best sentence's idf-weighted overlap with question plus choice.

The hot loop is the compiled kernel ``qascore._kernels.exam_lexical`` over packed term ids; this
module packs each distinct paragraph and each question once per batch and splits the tasks across
threads (the kernel releases the GIL).
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from collections.abc import Sequence
from hashlib import blake2b

import numpy as np

from ..._kernels.exam_lexical import document_frequency, solve_lexical
from ..._parallel import resolve_n_jobs
from ...text import Vocabulary, porter_stem
from ...validate import check_choice, check_real
from ..terms import LexicalAnalyzer
from ..records import ExamQuestion
from .base import SentenceCorpus, Solver, SolverAnswer

FREE_TEXT_ANSWERS = ("sentence", "paragraph", "any-paragraph")


def smoothed_idf(df: np.ndarray, n_docs: int) -> np.ndarray:
    """``log(1 + (N + 1) / (df + 1))``: positive for every term, also for terms no document has."""
    return np.log1p((n_docs + 1.0) / (df.astype(np.float64) + 1.0))


class PackedQuestions:
    """Distinct question terms and each choice's own distinct terms (not in the question), packed."""

    def __init__(self, questions: Sequence[ExamQuestion], analyzer: LexicalAnalyzer, vocab: Vocabulary):
        q_terms, ch_terms, q_choice_off = [], [], [0]
        for q in questions:
            qt = list(dict.fromkeys(analyzer.terms(q.text)))
            q_terms.append(qt)
            seen = set(qt)
            for choice in q.choices.values():
                ch_terms.append([t for t in dict.fromkeys(analyzer.terms(choice)) if t not in seen])
            q_choice_off.append(len(ch_terms))
        self.q = vocab.pack(q_terms)
        self.ch = vocab.pack(ch_terms)
        self.q_choice_off = np.asarray(q_choice_off, dtype=np.int64)


class PooledDocumentFrequency:
    """The lexical solver's pooled idf statistics, gathered batch by batch without keeping texts:
    each term's document frequency over the distinct paragraphs added so far, and their number.

    A solver given them (``LexicalSolver(idf_statistics=...)``) scores any batch with the idf it
    would have pooled over every paragraph added, bit for bit: scoring can then go one batch of
    systems at a time after one reading of all of them. A paragraph is known again by a 128-bit
    digest of its text (16 bytes kept per distinct paragraph).
    """

    def __init__(self, analyzer: LexicalAnalyzer) -> None:
        self.analyzer = analyzer
        self.df: dict[str, int] = {}
        self._seen: set[bytes] = set()

    @property
    def n_documents(self) -> int:
        return len(self._seen)

    def add(self, articles: Sequence[Sequence[str]]) -> PooledDocumentFrequency:
        """Count the paragraphs of ``articles`` (lists of paragraphs) not seen before."""
        new = []
        for paragraphs in articles:
            for text in paragraphs:
                key = blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
                if key not in self._seen:
                    self._seen.add(key)
                    new.append(text)
        if new:
            corpus = SentenceCorpus([new])
            vocab = Vocabulary()
            sents = self.analyzer.encode_batch(corpus.sentences, vocab)
            offsets = np.ascontiguousarray(sents.offsets[corpus.par_sent_off], dtype=np.int64)
            df = document_frequency(sents.ids, offsets, len(vocab))
            for term_id in np.flatnonzero(df):
                term = vocab.token(int(term_id))
                self.df[term] = self.df.get(term, 0) + int(df[term_id])
        return self

    def of(self, vocab: Vocabulary) -> tuple[np.ndarray, int]:
        """Document frequency of each term of ``vocab`` (by id) and the number of documents."""
        df = np.fromiter((self.df.get(vocab.token(i), 0) for i in range(len(vocab))), dtype=np.int64,
                         count=len(vocab))
        return df, self.n_documents


class LexicalSolver(Solver):
    """Each choice scores the best sentence's idf-weighted overlap with the question's terms plus the
    choice's own terms, normalised by their total idf; a sentence must contain one of the choice's own
    terms to support it. Answers the best choice when it beats the runner-up by more than ``margin``.

    idf is computed over the distinct paragraphs of the batch (all systems' articles pooled) unless
    ``idf_corpus`` (a list of texts) fixes it, or ``idf_statistics`` (a
    :class:`PooledDocumentFrequency` of every paragraph to pool) gives the pooled figures ahead.
    Terms are lowercased words without stopwords, Porter stemmed unless ``stem=False``. Free-text
    questions get as their answer the whole paragraph holding the sentence that best matches the
    question (``free_text="paragraph"``: an answer stated in the sentence after the one that
    restates the question is found too), that sentence alone (``free_text="sentence"``), or every
    paragraph of the article, that one first (``free_text="any-paragraph"``, the default): the judge
    then reads each paragraph as an answer and the question is answered when it accepts any, so an
    answer sharing no word with its question ("16") is found too.

    Example:

        >>> from qascore.exam import ExamQuestion
        >>> question = ExamQuestion("q1", "1", "Which planet is known as the red planet?",
        ...                         {"A": "Venus", "B": "Mars"}, "B")
        >>> [[answer]] = LexicalSolver().solve([["Mars is called the red planet because of iron oxide."]], [[question]])
        >>> answer.label, round(answer.confidence, 2)
        ('B', 0.65)

    :param margin: how much the best choice must beat the runner-up by (0: any lead).
    :param stem: Porter-stem the terms.
    :param idf_corpus: texts that fix the idf, instead of pooling the batch's paragraphs.
    :param free_text: ``any-paragraph``, ``paragraph`` or ``sentence`` (a free-text question's answer).
    :param n_jobs: threads (None: the library's default).
    :param idf_statistics: a filled :class:`PooledDocumentFrequency` that gives the pooled idf ahead.
    :raises ValueError: for a negative margin, an unknown ``free_text``, or both idf sources.
    """

    name = "lexical"

    def __init__(self, margin: float = 0.0, *, stem: bool = True, idf_corpus: Sequence[str] | None = None,
                 free_text: str = "any-paragraph", n_jobs: int | None = None,
                 idf_statistics: PooledDocumentFrequency | None = None):
        check_real(margin, "margin", low=0.0)
        self.margin = float(margin)
        self.free_text = check_choice(free_text, FREE_TEXT_ANSWERS, "free_text")
        self.analyzer = LexicalAnalyzer(stem=porter_stem if stem else None)
        self.idf_corpus = list(idf_corpus) if idf_corpus is not None else None
        if idf_corpus is not None and idf_statistics is not None:
            raise ValueError("give idf_corpus or idf_statistics, not both")
        self.idf_statistics = idf_statistics
        self.n_jobs = n_jobs

    def pooled_statistics(self) -> PooledDocumentFrequency | None:
        """An empty :class:`PooledDocumentFrequency` of this solver's terms when its idf is pooled
        over the batch (None when a corpus fixes it): fill it, then pass it as ``idf_statistics``."""
        return PooledDocumentFrequency(self.analyzer) if self.idf_corpus is None else None

    def settings(self) -> dict:
        return {"solver": self.name, "margin": self.margin, "terms": self.analyzer.name,
                "idf": "given-corpus" if self.idf_corpus is not None else "pooled-paragraphs",
                "free_text": self.free_text}

    def solve(self, articles, questions):
        return self.answers(self.run(articles, questions))

    def run(self, articles, questions) -> LexicalRun:
        """Score every choice of every (article, question) task; the raw arrays other solvers build on."""
        if len(articles) != len(questions):
            raise ValueError(f"{len(articles)} articles but {len(questions)} question lists")
        corpus = SentenceCorpus(articles)
        vocab = Vocabulary()
        sents = self.analyzer.encode_batch(corpus.sentences, vocab)
        flat_questions = [q for qs in questions for q in qs]
        # Systems share the bank's questions: analyse each distinct question object once.
        distinct: dict[int, int] = {}
        task_question = np.fromiter((distinct.setdefault(id(q), len(distinct)) for q in flat_questions),
                                    dtype=np.int64, count=len(flat_questions))
        unique_questions = list({id(q): q for q in flat_questions}.values())
        packed_q = PackedQuestions(unique_questions, self.analyzer, vocab)
        idf = self._idf(vocab, sents, corpus)

        n_q = np.fromiter((len(qs) for qs in questions), dtype=np.int64, count=len(questions))
        task_article = np.repeat(np.arange(len(articles), dtype=np.int64), n_q)
        n_choices = np.diff(packed_q.q_choice_off)[task_question]
        task_choice_off = np.zeros(len(flat_questions) + 1, dtype=np.int64)
        np.cumsum(n_choices, out=task_choice_off[1:])

        out = {
            "choice_score": np.zeros(task_choice_off[-1], dtype=np.float64),
            "choice_sent": np.full(task_choice_off[-1], -1, dtype=np.int64),
            "question_sent": np.full(len(flat_questions), -1, dtype=np.int64),
            "answer": np.full(len(flat_questions), -1, dtype=np.int64),
            "confidence": np.zeros(len(flat_questions), dtype=np.float64),
        }
        args = (sents.ids, sents.offsets, corpus.par_sent_off, corpus.art_par_off,
                corpus.art_pars, packed_q.q.ids, packed_q.q.offsets, packed_q.ch.ids, packed_q.ch.offsets,
                packed_q.q_choice_off, task_article, task_question, task_choice_off, idf, self.margin)
        outs = (out["choice_score"], out["choice_sent"], out["question_sent"], out["answer"], out["confidence"])
        ranges = _task_ranges(task_article, resolve_n_jobs(self.n_jobs))
        if len(ranges) == 1:
            solve_lexical(*args, *ranges[0], *outs)
        else:
            with ThreadPoolExecutor(len(ranges)) as pool:
                list(pool.map(lambda r: solve_lexical(*args, *r, *outs), ranges))
        return LexicalRun(corpus, flat_questions, n_q, task_choice_off, out)

    def _idf(self, vocab: Vocabulary, sents, corpus: SentenceCorpus) -> np.ndarray:
        if self.idf_statistics is not None:
            df, n_docs = self.idf_statistics.of(vocab)
            return smoothed_idf(df, n_docs)
        if self.idf_corpus is not None:
            docs = self.analyzer.encode_batch(self.idf_corpus, vocab)
            ids, doc_token_off = docs.ids, docs.offsets
        else:  # documents = distinct paragraphs, whose sentences (and so tokens) are contiguous
            ids, doc_token_off = sents.ids, sents.offsets[corpus.par_sent_off]
        df = document_frequency(ids, np.ascontiguousarray(doc_token_off, dtype=np.int64), len(vocab))
        return smoothed_idf(df, len(doc_token_off) - 1)

    def answers(self, run: LexicalRun) -> list[list[SolverAnswer]]:
        """The answers of a :meth:`run`, per article."""
        free_text = self.free_text
        flat_questions, n_q, corpus, out = run.questions, run.n_questions, run.corpus, run.out
        answers: list[list[SolverAnswer]] = []
        t = 0
        for a, count in enumerate(n_q):
            row = []
            sentence_ids = None
            for q in flat_questions[t:t + count]:
                if q.is_multiple_choice:
                    k = out["answer"][t]
                    label = list(q.choices)[k] if k >= 0 else None
                    row.append(SolverAnswer(label, float(out["confidence"][t])))
                else:
                    s = out["question_sent"][t]
                    best = None  # the global sentence that best matches the question
                    if s >= 0:
                        if sentence_ids is None:
                            sentence_ids = corpus.article_sentence_ids(a)
                        best = int(sentence_ids[s])
                    if free_text == "any-paragraph":  # every paragraph, the best match first
                        first = None if best is None else corpus.paragraph_index(best)
                        paragraphs = corpus.article_paragraphs(a, first)
                        row.append(SolverAnswer(None, float(best is not None), paragraphs[0], tuple(paragraphs[1:]))
                                   if paragraphs else SolverAnswer(None, 0.0))
                    elif best is None:
                        row.append(SolverAnswer(None, 0.0))
                    else:
                        row.append(SolverAnswer(None, 1.0, corpus.sentences[best] if free_text == "sentence"
                                                else corpus.paragraph_of(best)))
                t += 1
            answers.append(row)
        return answers


@dataclass
class LexicalRun:
    """Kernel outputs of one batch. Task t is question ``questions[t]``; its choices' rows are
    ``task_choice_off[t]:task_choice_off[t+1]`` of ``out["choice_score"]`` / ``out["choice_sent"]``;
    sentence indices are local to the task's article (see ``corpus.article_sentence_ids``)."""

    corpus: SentenceCorpus
    questions: list
    n_questions: np.ndarray
    task_choice_off: np.ndarray
    out: dict

    def task_article(self) -> np.ndarray:
        return np.repeat(np.arange(len(self.n_questions)), self.n_questions)


def _task_ranges(task_article: np.ndarray, n_jobs: int) -> list[tuple[int, int]]:
    """Split tasks into at most ``n_jobs`` contiguous ranges that never cut an article's run."""
    n = len(task_article)
    if n == 0:
        return [(0, 0)]
    cuts = [0]
    for j in range(1, n_jobs):
        i = int(n * j / n_jobs)
        while 0 < i < n and task_article[i] == task_article[i - 1]:
            i += 1
        if cuts[-1] < i < n:
            cuts.append(i)
    cuts.append(n)
    return list(zip(cuts[:-1], cuts[1:]))
