"""The compiled n-gram classifiers of a set of questions: packed arrays for the recall kernel.

One place builds, from the descriptions of every nugget of every question, the arrays that
``qascore._kernels.nugget_recall`` reads: description-term ids, the n-gram features of each
question (hash tables), the (description, weight) entries of each feature and each description's
total weight. Nuggeteer, Pourpre and the containment baseline all score through it.

Definitions (Nuggeteer, Marton 2006, section 2):
  W(e) = sum of idf of the terms of n-gram e (or n, the number of terms, with count weights);
  I(g, e) = 1 - (number of *other* nuggets of the question whose descriptions contain e) / |G|
            (``informativeness="equation3"`` counts g itself as well, literally eq. 3); a question's
            *background* nugget (Nuggeteer's null nugget, ``QuestionNuggets.background``) is one of
            G by default; with ``background_in_group=False`` G is the other nuggets only (it is
            neither counted in |G| nor as a nugget holding e, for any g);
  recall(d, r) = sum of W(e) I(g, e) over distinct n-grams e shared by description d and response r,
                 divided by the same sum over all distinct n-grams of d;
  recall(g, r) = max over the descriptions d of g.
"""
from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Sequence

import numpy as np

from .._kernels.nugget_recall import build_tables, document_frequency, ngram_recall, sequence_hashes as _sequence_hashes
from .._parallel import pool_threads, resolve_n_jobs
from .terms import Analyzer, IdfTable

ID_BITS = 21
ID_MASK = (1 << ID_BITS) - 1
INFORMATIVENESS = ("others", "equation3", "none")


@dataclass(frozen=True)
class QuestionNuggets:
    """The input of one question: nugget keys and, per nugget, its descriptions as term lists."""

    qid: str
    nugget_ids: Sequence[str]
    descriptions: Sequence[Sequence[Sequence[str]]]
    background: bool = False  # the last nugget is a background (null) nugget


def _pack(term_lists, vocab: dict, grow: bool) -> tuple[np.ndarray, np.ndarray]:
    lengths = np.fromiter((len(t) for t in term_lists), dtype=np.int64, count=len(term_lists))
    offsets = np.zeros(len(term_lists) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    if grow:
        flat = [vocab.setdefault(t, len(vocab) + 1) for terms in term_lists for t in terms]
    else:
        get = vocab.get
        flat = [get(t, 0) for terms in term_lists for t in terms]
    return np.asarray(flat, dtype=np.int32), offsets


def distinct(values: np.ndarray) -> np.ndarray:
    """Sorted distinct values (sort + compare: faster here than np.unique's hashing)."""
    values = np.sort(values)
    if len(values) == 0:
        return values
    keep = np.empty(len(values), dtype=bool)
    keep[0] = True
    np.not_equal(values[1:], values[:-1], out=keep[1:])
    return values[keep]


def sequence_hashes(ids: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """A uint64 hash per row of its id sequence: equal rows hash equal (a prefilter before comparing)."""
    return _sequence_hashes(
        np.ascontiguousarray(ids, dtype=np.int32), np.ascontiguousarray(offsets, dtype=np.int64)
    )


def ngram_keys(ids: np.ndarray, offsets: np.ndarray, n_max: int) -> tuple[np.ndarray, np.ndarray]:
    """(row, key) of every n-gram (1..n_max) of every row; zero ids end n-grams (they match nothing)."""
    lengths = np.diff(offsets)
    row_of = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
    row_end = offsets[1:][row_of]
    ids64 = ids.astype(np.int64)
    rows, keys = [], []
    key = np.zeros(len(ids), dtype=np.int64)
    alive = np.ones(len(ids), dtype=bool)
    positions = np.arange(len(ids), dtype=np.int64)
    for k in range(n_max):
        alive &= positions + k < row_end
        nxt = np.zeros(len(ids), dtype=np.int64)
        nxt[alive] = ids64[positions[alive] + k]
        alive &= nxt != 0
        key |= nxt << (ID_BITS * k)
        rows.append(row_of[alive])
        keys.append(key[alive])
    return np.concatenate(rows), np.concatenate(keys)


class NgramIndex:
    """Packed n-gram classifiers of many questions (see the module docstring)."""

    def __init__(self, questions: Sequence[QuestionNuggets], *, n_max: int = 2, informativeness: str = "others",
                 background_in_group: bool = True):
        if n_max not in (1, 2, 3):
            raise ValueError(f"n-gram length must be 1, 2 or 3, got {n_max}")
        if informativeness not in INFORMATIVENESS:
            raise ValueError(f"informativeness must be one of {INFORMATIVENESS}, got {informativeness!r}")
        self.n_max = n_max
        self.informativeness = informativeness
        self.questions = list(questions)
        self.question_index = {q.qid: i for i, q in enumerate(self.questions)}
        if len(self.question_index) != len(self.questions):
            raise ValueError("a question appears twice")
        desc_terms, desc_nugget, q_desc_start, q_nugget_start = [], [], [0], [0]
        in_group: list[bool] = []
        n_nuggets = 0
        for q in self.questions:
            if len(q.nugget_ids) != len(q.descriptions):
                raise ValueError(
                    f"question {q.qid}: {len(q.nugget_ids)} nuggets but {len(q.descriptions)} description lists"
                )
            if len(set(q.nugget_ids)) != len(q.nugget_ids):
                raise ValueError(f"question {q.qid}: duplicate nugget ids")
            if q.background and not q.nugget_ids:
                raise ValueError(f"question {q.qid}: a background nugget is the last nugget, but there is none")
            in_group += [True] * len(q.nugget_ids)
            if q.background and not background_in_group:
                in_group[-1] = False
            for descs in q.descriptions:
                for d in descs:
                    desc_terms.append(d)
                    desc_nugget.append(n_nuggets)
                n_nuggets += 1
            q_desc_start.append(len(desc_terms))
            q_nugget_start.append(n_nuggets)
        self.vocab: dict[str, int] = {}
        d_ids, d_off = _pack(desc_terms, self.vocab, grow=True)
        if len(self.vocab) > ID_MASK:
            raise ValueError(f"descriptions hold {len(self.vocab)} distinct terms; the kernel packs at most {ID_MASK}")
        self.terms: list[str] = ["", *self.vocab]  # id -> term (id 0 is no term)
        self.desc_nugget = np.asarray(desc_nugget, dtype=np.int32)
        self.q_desc_start = np.asarray(q_desc_start, dtype=np.int32)
        self.q_nugget_start = np.asarray(q_nugget_start, dtype=np.int32)
        nugget_question = np.repeat(np.arange(len(self.questions), dtype=np.int32), np.diff(self.q_nugget_start))
        desc_question = nugget_question[self.desc_nugget]

        rows, keys = ngram_keys(d_ids, d_off, n_max)
        # distinct (description, n-gram) pairs = the entries
        order = np.lexsort((keys, rows))
        rows, keys = rows[order], keys[order]
        first = np.ones(len(rows), dtype=bool)
        first[1:] = (rows[1:] != rows[:-1]) | (keys[1:] != keys[:-1])
        entry_desc, entry_key = rows[first].astype(np.int32), keys[first]
        entry_q = desc_question[entry_desc].astype(np.int64)
        # features = distinct (question, n-gram)
        by_pair = np.lexsort((entry_key, entry_q))
        new_pair = np.ones(len(by_pair), dtype=bool)
        new_pair[1:] = (entry_q[by_pair][1:] != entry_q[by_pair][:-1]) | (
            entry_key[by_pair][1:] != entry_key[by_pair][:-1]
        )
        entry_feat = np.empty(len(by_pair), dtype=np.int64)
        entry_feat[by_pair] = np.cumsum(new_pair) - 1
        self.feat_key = np.ascontiguousarray(entry_key[by_pair][new_pair])
        feat_q = np.ascontiguousarray(entry_q[by_pair][new_pair]).astype(np.int32)
        # informativeness from the number of nuggets of G whose descriptions hold each feature
        entry_nug = self.desc_nugget[entry_desc].astype(np.int64)
        nugget_in_group = np.asarray(in_group, dtype=bool)
        grouped = nugget_in_group[entry_nug]
        nug_feat = distinct(entry_nug[grouped] * (len(self.feat_key) + 1) + entry_feat[grouped])
        nuggets_with = np.bincount(nug_feat % (len(self.feat_key) + 1), minlength=len(self.feat_key))
        if informativeness == "none":
            entry_info = np.ones(len(entry_feat))
        else:
            group = np.bincount(nugget_question, weights=nugget_in_group, minlength=len(self.questions))[entry_q]
            # g itself is one of the nuggets holding e when g is in G ("others" leaves it out)
            others = nuggets_with[entry_feat] - (grouped if informativeness == "others" else 0)
            # a background nugget alone in a question (G empty): nothing to share n-grams with
            entry_info = 1.0 - np.divide(others, group, out=np.zeros(len(others)), where=group > 0)
        # entries grouped by feature for the kernel
        by_feat = np.argsort(entry_feat, kind="stable")
        self.entry_desc = np.ascontiguousarray(entry_desc[by_feat])
        self.entry_feat = entry_feat[by_feat]
        self.entry_info = np.ascontiguousarray(entry_info[by_feat])
        self.feat_ptr = np.zeros(len(self.feat_key) + 1, dtype=np.int64)
        np.cumsum(np.bincount(self.entry_feat, minlength=len(self.feat_key)), out=self.feat_ptr[1:])
        self.tab_keys, self.tab_feat, self.q_tab_start, self.q_tab_mask = build_tables(
            self.feat_key, feat_q, len(self.questions)
        )
        self.n_descriptions = len(desc_terms)

    # ---------------------------------------------------------------- weights and scoring

    def feature_terms(self, feature: int) -> list[str]:
        key = int(self.feat_key[feature])
        return [
            self.terms[(key >> (ID_BITS * k)) & ID_MASK] for k in range(self.n_max) if (key >> (ID_BITS * k)) & ID_MASK
        ]

    def term_weights(self, idf_of_term) -> np.ndarray:
        """Per description-term id, ``idf_of_term(term)`` (index 0 unused)."""
        return np.array([0.0] + [idf_of_term(t) for t in self.terms[1:]], dtype=np.float64)

    def pool_idf(self, desc_ids: np.ndarray, offsets: np.ndarray) -> np.ndarray:
        """idf of each description term over the responses being scored (each one a document)."""
        df = document_frequency(np.ascontiguousarray(desc_ids, dtype=np.int32), offsets, len(self.terms))
        return IdfTable.idf_array(max(len(offsets) - 1, 1), df)

    def description_ids(self, ids: np.ndarray, vocab) -> np.ndarray:
        """Ids of a text-layer ``vocab`` -> description-term ids (0: a term no description holds)."""
        remap = np.zeros(len(vocab) + 1, dtype=np.int32)
        for term, did in self.vocab.items():
            gid = vocab.id_of(term)
            if gid is not None:
                remap[gid] = did
        return remap[ids]

    def weights(self, term_weight: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(entry weights W(e) I(g, e), description totals) from per-term weights (None: count weights)."""
        term_weight = (
            np.ones(len(self.terms), dtype=np.float64)
            if term_weight is None
            else np.array(term_weight, dtype=np.float64)
        )
        term_weight[0] = 0.0
        feat_weight = np.zeros(len(self.feat_key), dtype=np.float64)
        for k in range(self.n_max):
            feat_weight += term_weight[(self.feat_key >> (ID_BITS * k)) & ID_MASK]
        entry_weight = np.ascontiguousarray(feat_weight[self.entry_feat] * self.entry_info)
        desc_total = np.bincount(self.entry_desc, weights=entry_weight, minlength=self.n_descriptions)
        return entry_weight, np.ascontiguousarray(desc_total, dtype=np.float64)

    def encode(self, term_lists) -> tuple[np.ndarray, np.ndarray]:
        """Responses as description-term ids (0 for terms no description holds)."""
        return _pack(term_lists, self.vocab, grow=False)

    def recall(self, ids: np.ndarray, offsets: np.ndarray, question: np.ndarray, weights, *, n_jobs: int | None = None):
        """Best-description recall of every nugget of each response's question.

        Returns (out_offsets, recall, best_description, entry_nugget): response i's nuggets are
        ``recall[out_offsets[i]:out_offsets[i + 1]]`` in the question's nugget order, and
        ``entry_nugget`` gives each entry's global nugget index (see :meth:`nugget_of`).
        """
        question = np.ascontiguousarray(question, dtype=np.int32)
        if len(question) != len(offsets) - 1:
            raise ValueError("one question index per response is required")
        if len(question) and (question.min() < 0 or question.max() >= len(self.questions)):
            raise ValueError("question index out of range")
        counts = np.diff(self.q_nugget_start)[question].astype(np.int64)
        out_offsets = np.zeros(len(question) + 1, dtype=np.int64)
        np.cumsum(counts, out=out_offsets[1:])
        recall = np.zeros(int(out_offsets[-1]), dtype=np.float64)
        best = np.full(int(out_offsets[-1]), -1, dtype=np.int32)
        entry_weight, desc_total = weights
        ngram_recall(
            np.ascontiguousarray(ids, dtype=np.int32),
            np.ascontiguousarray(offsets, dtype=np.int64),
            question,
            self.n_max,
            self.tab_keys,
            self.tab_feat,
            self.q_tab_start,
            self.q_tab_mask,
            self.feat_ptr,
            self.entry_desc,
            entry_weight,
            desc_total,
            self.desc_nugget,
            self.q_desc_start,
            self.q_nugget_start,
            out_offsets,
            recall,
            best,
            pool_threads(resolve_n_jobs(n_jobs)),
        )
        within = np.arange(len(recall), dtype=np.int64) - np.repeat(out_offsets[:-1], counts)
        entry_nugget = (np.repeat(self.q_nugget_start[:-1][question], counts) + within).astype(np.int32)
        return out_offsets, recall, best, entry_nugget

    def nugget_of(self, global_index: int) -> tuple[str, str]:
        """(qid, nugget id) of a global nugget index."""
        q = int(np.searchsorted(self.q_nugget_start, global_index, side="right")) - 1
        return self.questions[q].qid, self.questions[q].nugget_ids[global_index - self.q_nugget_start[q]]

    def matched_ngrams(self, terms: Sequence[str], description: int, weights) -> list[tuple[str, float]]:
        """The n-grams description ``description`` shares with ``terms``, with their weights W I
        (diagnostics; plain Python, one pair at a time)."""
        ids, off = self.encode([list(terms)])
        _, keys = ngram_keys(ids, off, self.n_max)
        wanted = set(keys.tolist())
        entry_weight, _ = weights
        out = []
        for e in np.nonzero(self.entry_desc == description)[0]:
            f = self.entry_feat[e]
            if int(self.feat_key[f]) in wanted:
                out.append((" ".join(self.feature_terms(f)), float(entry_weight[e])))
        return sorted(out, key=lambda p: -p[1])


def score_texts(
    index: NgramIndex,
    analyzer: Analyzer,
    texts,
    question: np.ndarray,
    *,
    weighting: str,
    idf: IdfTable | None,
    n_jobs: int | None = None,
):
    """Encode ``texts`` (compiled) and score them with :func:`score_encoded`."""
    packed = analyzer.encode_batch(texts, n_jobs=n_jobs)
    return score_encoded(index, analyzer, packed.ids, packed.offsets, question, weighting=weighting, idf=idf,
                         n_jobs=n_jobs)


def score_encoded(
    index: NgramIndex,
    analyzer: Analyzer,
    ids: np.ndarray,
    offsets: np.ndarray,
    question: np.ndarray,
    *,
    weighting: str,
    idf: IdfTable | None,
    n_jobs: int | None = None,
):
    """Weight terms (idf from ``idf`` or else the responses themselves, or counts) and run the
    kernel: :meth:`NgramIndex.recall`'s outputs plus the weights used."""
    desc_ids = index.description_ids(ids, analyzer.vocab)
    term_weight = None
    if weighting == "idf":
        term_weight = index.term_weights(idf.idf) if idf is not None else index.pool_idf(desc_ids, offsets)
    weights = index.weights(term_weight)
    return (*index.recall(desc_ids, offsets, question, weights, n_jobs=n_jobs), weights)
