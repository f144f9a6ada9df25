"""Nuggeteer against real assignments: the TREC 2024 RAG study of docs/nuggets.md.

Each answer is split into sentences (the responses), each topic's nuggets are the descriptions and
the LLM's ``support`` labels are the judgements (``partial_support`` is neither a positive nor
background). The labels say which *answer* carries a nugget, not which sentence, so a supported
nugget is aligned to the answer's sentence with the highest description-only recall; that sentence
is the judged response (an extra description), and sentences aligned to no nugget feed the null
nugget. A method trained on run A assigns nuggets to run B's sentences, with its threshold chosen
on the reverse direction (trained on B, tested on A); a topic's nugget counts as assigned when any
sentence gets it. Compared with the labels: assignment precision/recall/F1 over (topic, nugget)
pairs, and RMSE and Kendall tau between predicted and labelled per-topic strict vital scores.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from qascore.nuggets.formats import AnswerKey, Judgements, Nugget, Question, RagTopic, Run
from qascore.nuggets.nuggeteer import Nuggeteer
from qascore.nuggets.pourpre import Containment, UnigramMatcher
from qascore.nuggets.terms import Analyzer
from qascore.stats import rmse
from tuning import agreement, threshold_grid

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)")


def split_sentences(text: str) -> list[str]:
    """Sentences at ., ! or ? followed by whitespace (empty text: no sentence)."""
    return [s.strip() for s in _SENTENCE_END.split(text.strip()) if s.strip()]


def rag_answer_key(topics: list[RagTopic]) -> AnswerKey:
    """Nuggets numbered 1.. per topic; an importance other than vital/okay is kept as not vital."""
    questions = {}
    for t in topics:
        nuggets = [Nugget(t.qid, str(i + 1), n.text, n.importance if n.importance in ("vital", "okay") else None)
                   for i, n in enumerate(t.nuggets)]
        questions[t.qid] = Question(t.qid, None, nuggets)
    return AnswerKey(questions)


def sentence_run(topics: list[RagTopic], tag: str) -> Run:
    run = Run(tag)
    for t in topics:
        for s in split_sentences(t.answer_text):
            run.add(t.qid, "answer", s)
        run.responses.setdefault(t.qid, [])
    return run


def labels(topics: list[RagTopic]) -> dict[str, set[str]]:
    return {t.qid: {str(i + 1) for i, n in enumerate(t.nuggets) if n.assignment == "support"} for t in topics}


def partial_labels(topics: list[RagTopic]) -> dict[str, set[str]]:
    return {t.qid: {str(i + 1) for i, n in enumerate(t.nuggets) if n.assignment == "partial_support"} for t in topics}


def judgements_from_labels(
    key: AnswerKey, topics: list[RagTopic], run: Run, target: AnswerKey | None = None, idf="background"
) -> Judgements:
    """Align each supported nugget to its best sentence (description-only recall, with ``idf``). With
    ``target``, nugget ids are translated to the target key's by description text (nuggets it lacks
    dropped): the runs' nugget lists can differ slightly."""
    aligner = Nuggeteer(key, n=2, idf=idf)
    table = aligner.recall_table([run])
    position = {id(r): i for i, r in enumerate(table.responses)}
    supported, partial = labels(topics), partial_labels(topics)
    judged = Judgements(runs={run.tag: Run(run.tag)})
    for qid, items in run.responses.items():
        if not items:
            continue
        nugget_ids = [n.nugget_id for n in key[qid].nuggets]
        scores = np.stack([table.row(position[id(r)])[0] for r in items])
        assigned: dict[int, list[str]] = {}
        for nid in sorted(supported[qid] | partial[qid], key=int):
            j = nugget_ids.index(nid)
            best = int(np.argmax(scores[:, j]))
            if scores[best, j] > 0 and nid in supported[qid]:
                assigned.setdefault(items[best].item, []).append(nid)
            elif scores[best, j] > 0:
                assigned.setdefault(items[best].item, [])  # partial: neither positive nor background
        if target is not None:
            by_text = {n.description: n.nugget_id for n in target[qid].nuggets}
            text_of = {n.nugget_id: n.description for n in key[qid].nuggets}
            assigned = {k: [by_text[text_of[n]] for n in v if text_of[n] in by_text] for k, v in assigned.items()}
        judged.assigned[run.tag, qid] = {k: v for k, v in assigned.items() if v}
        # a sentence aligned to a partial nugget only is dropped from the judged run (not background)
        keep = [r for r in items if r.item not in assigned or assigned[r.item]]
        judged.runs[run.tag].responses[qid] = keep
    return judged


@dataclass
class StudyRow:
    method: str
    direction: str
    threshold: float | None
    precision: float
    recall: float
    f1: float
    rmse: float
    tau_b: float
    gamma: float


@dataclass
class _Truth:
    """One run's labels over the key's nuggets, flattened in key order."""

    question: np.ndarray  # question position of each nugget
    vital: np.ndarray
    supported: np.ndarray

    @classmethod
    def of(cls, key: AnswerKey, topics: list[RagTopic]) -> _Truth:
        gold = labels(topics)
        question = [i for i, q in enumerate(key) for _ in q.nuggets]
        vital = [n.is_vital for q in key for n in q.nuggets]
        supported = [n.nugget_id in gold[q.qid] for q in key for n in q.nuggets]
        return cls(np.array(question), np.array(vital, dtype=bool), np.array(supported, dtype=bool))

    def vital_scores(self, carried: np.ndarray) -> np.ndarray:
        n_q = int(self.question.max()) + 1 if len(self.question) else 0
        hits = np.bincount(self.question, weights=carried & self.vital, minlength=n_q)
        total = np.bincount(self.question, weights=self.vital, minlength=n_q)
        return np.divide(hits, total, out=np.zeros(n_q), where=total > 0)

    def evaluate(self, carried: np.ndarray, method: str, direction: str, threshold) -> StudyRow:
        tp = int((carried & self.supported).sum())
        p = tp / carried.sum() if carried.sum() else 0.0
        r = tp / self.supported.sum() if self.supported.sum() else 0.0
        f = 2 * p * r / (p + r) if p + r else 0.0
        a = agreement(self.vital_scores(carried), self.vital_scores(self.supported))
        return StudyRow(method, direction, threshold, p, r, f, a.rmse, a.tau_b, a.gamma)


def _key_positions(index, key: AnswerKey) -> np.ndarray:
    """Global nugget index of ``index`` -> position in the key's flattened nuggets (-1: null nugget)."""
    flat = {(q.qid, n.nugget_id): i for i, (q, n) in enumerate((q, n) for q in key for n in q.nuggets)}
    return np.array([flat.get((q.qid, nid), -1) for q in index.questions for nid in q.nugget_ids], dtype=np.int64)


def _carried_over_key(positions: np.ndarray, entry_nugget: np.ndarray, mask: np.ndarray, n: int) -> np.ndarray:
    carried = np.zeros(n, dtype=bool)
    pos = positions[entry_nugget[mask]]
    carried[pos[pos >= 0]] = True
    return carried


def _nuggeteer_assign(model: Nuggeteer, run: Run):
    table = model.recall_table([run])
    positions = _key_positions(model.index, model.key)
    n = sum(len(q.nuggets) for q in model.key)
    return lambda threshold: _carried_over_key(positions, table.entry_nugget, table.carried(threshold), n)


def _matcher_assign(matcher: UnigramMatcher, run: Run):
    items = [r for rs in run.responses.values() for r in rs]
    _, recall, entry_nugget = matcher.response_scores([r.text for r in items], [r.qid for r in items])
    positions = _key_positions(matcher.index, matcher.key)
    return lambda threshold: _carried_over_key(
        positions, entry_nugget, (recall > 0) & (recall >= threshold), len(positions)
    )


def _best_threshold(assign_at, truth: _Truth, grid) -> float:
    """Threshold minimising the RMSE of per-topic vital scores against the labels."""
    gold = truth.vital_scores(truth.supported)
    errors = [rmse(truth.vital_scores(assign_at(t)), gold) for t in grid]
    return float(grid[int(np.argmin(errors))])


def run_study(
    topics_a: list[RagTopic], topics_b: list[RagTopic], name_a: str = "A", name_b: str = "B", **options
) -> list[StudyRow]:
    """Every method in both directions (see the module docstring); ``options`` go to :class:`Nuggeteer`
    (``idf`` also to the sentence aligner)."""
    options.setdefault("n", 2)
    if [t.qid for t in topics_a] != [t.qid for t in topics_b]:
        raise ValueError("the two runs must answer the same topics in the same order")
    topics = {name_a: topics_a, name_b: topics_b}
    keys = {name: rag_answer_key(topics[name]) for name in topics}
    runs = {name: sentence_run(topics[name], name) for name in topics}
    truth = {name: _Truth.of(keys[name], topics[name]) for name in topics}
    judged = {
        (tr, te): judgements_from_labels(keys[tr], topics[tr], runs[tr], keys[te], options.get("idf", "background"))
        for tr in topics
        for te in topics
        if tr != te
    }
    grid = threshold_grid()
    methods = {
        "nuggeteer (judgements)": lambda tr, te: _nuggeteer_assign(
            Nuggeteer(keys[te], judgements=judged[tr, te], **options), runs[te]
        ),
        "nuggeteer (descriptions)": lambda tr, te: _nuggeteer_assign(Nuggeteer(keys[te], **options), runs[te]),
        "pourpre (idf)": lambda tr, te: _matcher_assign(
            UnigramMatcher(keys[te], Analyzer(stem=True, stopwords=True), "idf"), runs[te]
        ),
    }
    rows = []
    for train, test in ((name_a, name_b), (name_b, name_a)):
        direction = f"{train}->{test}"
        for method, make in methods.items():
            # the threshold is chosen on the reverse direction: trained on `test`, tested on `train`
            threshold = _best_threshold(make(test, train), truth[train], grid)
            rows.append(truth[test].evaluate(make(train, test)(threshold), method, direction, threshold))
        containment = _matcher_assign(Containment(keys[test]), runs[test])
        rows.append(truth[test].evaluate(containment(1.0), "containment", direction, None))
    return rows


def format_table(rows: list[StudyRow]) -> str:
    lines = [
        "| method | train->test | threshold | P | R | F1 | RMSE vital | tau-b vital | gamma vital |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        t = "-" if r.threshold is None else f"{r.threshold:.2f}"
        lines.append(
            f"| {r.method} | {r.direction} | {t} | {r.precision:.3f} | {r.recall:.3f} | {r.f1:.3f} "
            f"| {r.rmse:.3f} | {r.tau_b:.3f} | {r.gamma:.3f} |"
        )
    return "\n".join(lines)
