"""AVA inputs: (question, reference(s), candidate[, label]) triples from EVOUNA or JSONL files.

EVOUNA (``NQ.json``): one record per question with ``golden_answer`` (alternatives separated by
``/``), five systems' answers ``answer_<system>`` and human labels ``judge_<system>`` (true /
false, null when unjudged), and an ``improper`` flag. Unjudged answers and improper questions
are left out, as the EVOUNA study does; the count of each is kept on the result.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from ..errors import InputFormatError
from ..io import iter_jsonl, iter_lines, read_head, read_json, require_field

EVOUNA_SYSTEMS = ("fid", "gpt35", "chatgpt", "gpt4", "newbing")


@dataclass
class Triples:
    """Parallel lists: row i is (questions[i], references[i], candidates[i]).

    ``references[i]`` is a list of one or more reference answers; ``labels`` (0/1) and
    ``systems`` / ``question_ids`` are present when the source has them.

    Example:

        >>> triples = Triples(["capital of France?"] * 2, [["Paris"], ["Paris"]], ["Paris", "Lyon"],
        ...                   labels=np.array([1, 0]))
        >>> len(triples), triples.subset([1]).candidates, triples.require_labels().tolist()
        (2, ['Lyon'], [1, 0])
    """

    questions: list
    references: list
    candidates: list
    labels: np.ndarray | None = None
    systems: list | None = None
    question_ids: list | None = None
    dropped: dict = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.questions)

    def require_labels(self) -> np.ndarray:
        """The human labels, or a clear error where the source had none."""
        if self.labels is None:
            raise ValueError("these triples carry no human labels (a 'label' field per row is needed)")
        return self.labels

    def subset(self, index) -> Triples:
        index = np.asarray(index, dtype=np.int64)

        def pick(xs):
            return None if xs is None else [xs[i] for i in index]

        return Triples(
            pick(self.questions), pick(self.references), pick(self.candidates),
            None if self.labels is None else self.labels[index], pick(self.systems), pick(self.question_ids),
        )


def split_gold_alternatives(golden: str) -> list[str]:
    """EVOUNA's ``golden_answer`` alternatives: split on '/', stripped, empties dropped."""
    parts = [p.strip() for p in golden.split("/")]
    return [p for p in parts if p] or [golden]


def load_evouna(path, *, include_improper: bool = False, aliases: bool = False) -> Triples:
    """All judged (question, gold, answer, label) rows of an EVOUNA file (NQ.json / TQ.json; ``-`` for stdin).

    ``aliases``: each row's references are the gold answer's '/'-separated alternatives (what the
    shipped models are judged on by default) instead of the one string as written.

    Example:

        >>> import json, os, tempfile
        >>> folder = tempfile.TemporaryDirectory()
        >>> path = os.path.join(folder.name, "NQ.json")
        >>> with open(path, "w") as out:
        ...     json.dump([{"question": "who wrote hamlet", "golden_answer": "Shakespeare/William Shakespeare",
        ...                 "answer_fid": "Shakespeare", "judge_fid": True,
        ...                 "answer_gpt35": "Marlowe", "judge_gpt35": False}], out)
        >>> triples = load_evouna(path, aliases=True)
        >>> triples.candidates, triples.labels.tolist(), triples.systems, triples.references[0]
        (['Shakespeare', 'Marlowe'], [1, 0], ['fid', 'gpt35'], ['Shakespeare', 'William Shakespeare'])
        >>> folder.cleanup()

    :param path: an EVOUNA JSON file, or ``-`` for stdin.
    :param include_improper: keep the questions EVOUNA marks improper.
    :param aliases: split each gold answer into its '/'-separated alternatives.
    :returns: the judged :class:`Triples`, with labels, systems and question ids; ``dropped`` counts
        the unjudged answers and improper questions left out.
    :raises qascore.errors.InputFormatError: for a file that is not a list of question records.
    """
    records = read_json(path)
    if not isinstance(records, list):
        raise InputFormatError(path, None, "expected a JSON list of question records")
    q, refs, cands, labels, systems, qids = [], [], [], [], [], []
    dropped = {"unjudged": 0, "improper_questions": 0}
    for number, rec in enumerate(records):
        where = f"record {number}"
        if not isinstance(rec, dict) or "question" not in rec or "golden_answer" not in rec:
            raise InputFormatError(path, None, f"{where}: expected an object with 'question' and 'golden_answer'")
        if rec.get("improper") and not include_improper:
            dropped["improper_questions"] += 1
            continue
        if not isinstance(rec["golden_answer"], str):
            raise InputFormatError(path, None, f"{where}: golden_answer must be a string, "
                                               f"got {type(rec['golden_answer']).__name__}")
        for system in EVOUNA_SYSTEMS:
            answer, judge = rec.get(f"answer_{system}"), rec.get(f"judge_{system}")
            if judge is None or answer is None:
                dropped["unjudged"] += 1
                continue
            if not isinstance(judge, bool) or not isinstance(answer, str):
                raise InputFormatError(
                    path, None, f"{where}: judge_{system} must be true/false/null and answer_{system} a string"
                )
            q.append(rec["question"])
            refs.append(split_gold_alternatives(rec["golden_answer"]) if aliases else [rec["golden_answer"]])
            cands.append(answer)
            labels.append(int(judge))
            systems.append(system)
            qids.append(number)
    return Triples(q, refs, cands, np.asarray(labels, dtype=np.int64), systems, qids, dropped)


def split_by_question(triples: Triples, *, dev_fraction: float = 0.2, seed: int = 20240) -> tuple[Triples, Triples]:
    """Train/dev split by question id (never the same question on both sides), reproducible by seed.

    Example:

        >>> triples = Triples(["q1", "q1", "q2", "q3", "q4"], [["a"]] * 5, ["a"] * 5,
        ...                   question_ids=["1", "1", "2", "3", "4"])
        >>> train, dev = split_by_question(triples, dev_fraction=0.5)
        >>> train.question_ids, dev.question_ids
        (['2', '4'], ['1', '1', '3'])

    :param triples: :class:`Triples` with question ids.
    :param dev_fraction: the share of questions that go to dev.
    :param seed: the seed of the split.
    :returns: ``(train, dev)``.
    :raises ValueError: for triples without question ids.
    """
    if triples.question_ids is None:
        raise ValueError("split_by_question needs question ids")
    unique = np.unique(np.asarray(triples.question_ids))
    rng = np.random.default_rng(seed)
    dev_q = set(rng.permutation(unique)[: int(round(len(unique) * dev_fraction))].tolist())
    is_dev = np.fromiter((qid in dev_q for qid in triples.question_ids), dtype=bool, count=len(triples))
    return triples.subset(np.flatnonzero(~is_dev)), triples.subset(np.flatnonzero(is_dev))


CALIBRATION_FRACTION, CALIBRATION_SEED = 0.1, 7


def calibration_split(train: Triples) -> tuple[Triples, Triples]:
    """(fit, calibration): the train split cut again by question; the calibration part is where
    thresholds and the stacker are fitted (never on dev).

    Example:

        >>> train = Triples(["q"] * 20, [["a"]] * 20, ["a"] * 20, question_ids=list(range(20)))
        >>> fit, calibration = calibration_split(train)
        >>> len(fit), len(calibration)
        (18, 2)

    :param train: the train :class:`Triples` (with question ids).
    :returns: ``(fit, calibration)``, 10% of the questions in calibration.
    """
    return split_by_question(train, dev_fraction=CALIBRATION_FRACTION, seed=CALIBRATION_SEED)


def _references_of(record, path, lineno) -> list[str]:
    ref = require_field(record, "reference", (str, list), path, lineno)
    if isinstance(ref, str):
        return [ref]
    if not ref or not all(isinstance(r, str) for r in ref):
        raise InputFormatError(path, lineno, "field 'reference' must be a string or a non-empty list of strings")
    return ref


class TripleRecord(NamedTuple):
    """One checked record of a JSONL triples file, and the parsed record itself (to write it back)."""

    question: str
    references: list[str]
    candidate: str
    label: int | None  # None unless a label was asked for
    system: str
    record: dict


def iter_jsonl_triples(path, *, need_label: bool = False) -> Iterator[TripleRecord]:
    """The records of a JSONL triples file (``-``: stdin) one at a time, in file order: lines with
    ``question``, ``reference`` (str or list), ``candidate`` [, ``label`` (with ``need_label``),
    ``system``]; a bad record raises :class:`InputFormatError` naming the file and line when it is
    reached, so a caller that reads in chunks holds one chunk, not the file."""
    for lineno, rec in iter_jsonl(path):
        question = require_field(rec, "question", str, path, lineno)
        references = _references_of(rec, path, lineno)
        candidate = require_field(rec, "candidate", str, path, lineno)
        label = None
        if need_label:
            label = require_field(rec, "label", (bool, int), path, lineno)
            if label not in (0, 1):
                raise InputFormatError(path, lineno, f"field 'label' must be 0/1 or true/false, got {label!r}")
            label = int(label)
        system = rec.get("system", "all")
        if not isinstance(system, str):
            raise InputFormatError(path, lineno, "field 'system' must be a string")
        yield TripleRecord(question, references, candidate, label, system, rec)


def load_jsonl_triples(path, *, need_label: bool = False) -> tuple[Triples, list]:
    """All the records of a JSONL triples file (see :func:`iter_jsonl_triples`): the triples
    (question ids numbered over the whole file) and the parsed records (to write them back).

    Example:

        >>> import os, tempfile
        >>> folder = tempfile.TemporaryDirectory()
        >>> path = os.path.join(folder.name, "triples.jsonl")
        >>> with open(path, "w") as out:
        ...     _ = out.write(
        ...         '{"question": "capital of France?", "reference": "Paris", "candidate": "Lyon", "label": 0}\\n')
        >>> triples, records = load_jsonl_triples(path, need_label=True)
        >>> triples.references, triples.labels.tolist(), records[0]["candidate"]
        ([['Paris']], [0], 'Lyon')
        >>> folder.cleanup()

    :param path: a JSONL file (``-``: stdin) of ``question``, ``reference`` (a string or a list),
        ``candidate`` and optional ``label`` and ``system``.
    :param need_label: require a 0/1 ``label`` on every line.
    :returns: ``(triples, records)``.
    :raises qascore.errors.InputFormatError: naming the file and line of a bad record.
    """
    q, refs, cands, labels, systems, records = [], [], [], [], [], []
    for row in iter_jsonl_triples(path, need_label=need_label):
        q.append(row.question)
        refs.append(row.references)
        cands.append(row.candidate)
        labels.append(row.label)
        systems.append(row.system)
        records.append(row.record)
    labels_array = np.asarray(labels, dtype=np.int64) if need_label else None
    qids = _question_ids(q)
    return Triples(q, refs, cands, labels_array, systems, qids), records


def _question_ids(questions: list) -> list:
    ids: dict[str, int] = {}
    return [ids.setdefault(text, len(ids)) for text in questions]


@dataclass
class As2Question:
    """One question of an answer-sentence-selection (AS2) file with its candidate sentences."""

    question: str
    sentences: list
    labels: list
    line: int  # where the question starts in its file


WIKIQA_COLUMNS = ("QuestionID", "Question", "DocumentID", "DocumentTitle", "SentenceID", "Sentence", "Label")


def read_as2(path) -> list[As2Question]:
    """The questions of an AS2 file, in file order.

    Two layouts: JSONL lines ``{"question", "candidates": [{"sentence", "label"}]}`` (TREC-QA as
    shipped in ``ava/trecqa``), or WikiQA's TSV (a header row of :data:`WIKIQA_COLUMNS`, one
    sentence per row, rows of a question grouped by ``QuestionID``): a ``.tsv`` file, or any
    input not named ``.jsonl`` / ``.json`` (a pipe, ``-``) that opens with that header row.
    Labels are 0/1; anything else, a missing field or a short row names the file and line.

    Example:

        >>> import json, os, tempfile
        >>> folder = tempfile.TemporaryDirectory()
        >>> path = os.path.join(folder.name, "as2.jsonl")
        >>> with open(path, "w") as out:
        ...     _ = out.write(json.dumps({"question": "who wrote hamlet", "candidates": [
        ...         {"sentence": "Shakespeare wrote Hamlet.", "label": 1},
        ...         {"sentence": "Hamlet is a prince.", "label": 0}]}))
        >>> read_as2(path)[0].labels
        [1, 0]
        >>> folder.cleanup()

    :param path: a JSONL or WikiQA TSV file, or ``-``.
    :returns: the questions, each an ``As2Question`` (question, sentences, labels, line).
    :raises qascore.errors.InputFormatError: naming the file and line of a bad row.
    """
    name = str(path).removesuffix(".gz")
    if name.endswith(".tsv") or (not name.endswith((".jsonl", ".json"))  # a pipe or "-": by its header row
                                 and read_head(path).removeprefix(b"\xef\xbb\xbf").startswith(b"QuestionID\t")):
        return _read_wikiqa_tsv(path)
    questions = []
    for lineno, rec in iter_jsonl(path):
        question = require_field(rec, "question", str, path, lineno)
        rows = require_field(rec, "candidates", list, path, lineno)
        for row in rows:
            if not isinstance(row, dict) or not isinstance(row.get("sentence"), str) or row.get("label") not in (0, 1):
                raise InputFormatError(path, lineno, "each candidate needs a string 'sentence' and a 0/1 'label'")
        questions.append(As2Question(question, [r["sentence"] for r in rows], [int(r["label"]) for r in rows], lineno))
    return questions


def _read_wikiqa_tsv(path) -> list[As2Question]:
    by_id: dict[str, As2Question] = {}
    for lineno, line in iter_lines(path):
        cols = line.split("\t")
        if lineno == 1:
            if tuple(cols) != WIKIQA_COLUMNS:
                raise InputFormatError(
                    path, 1, f"expected the WikiQA header row {' '.join(WIKIQA_COLUMNS)} (tab-separated)"
                )
            continue
        if len(cols) != len(WIKIQA_COLUMNS):
            raise InputFormatError(
                path, lineno, f"expected {len(WIKIQA_COLUMNS)} tab-separated columns, got {len(cols)}"
            )
        qid, question, sentence, label = cols[0], cols[1], cols[5], cols[6]
        if label not in ("0", "1"):
            raise InputFormatError(path, lineno, f"Label must be 0 or 1, got {label!r}")
        entry = by_id.setdefault(qid, As2Question(question, [], [], lineno))
        if entry.question != question:
            raise InputFormatError(path, lineno, f"question {qid} has another text than on line {entry.line}")
        entry.sentences.append(sentence)
        entry.labels.append(int(label))
    return list(by_id.values())


AS2_CONSTRUCTIONS = ("pairs", "one_reference", "sentences")


def _draw(items: list, k: int, rng) -> list:
    """``k`` of ``items`` drawn uniformly without replacement, in their order (all when fewer)."""
    if len(items) <= k:
        return items
    return [items[i] for i in sorted(rng.choice(len(items), k, replace=False))]


def load_as2_as_ava(path, *, construction: str = "pairs", seed: int = 13, max_pairs_per_question: int | None = None,
                    per_label: bool = False, max_candidates: int | None = None, off_topic: int = 0) -> Triples:
    """AVA triples from an answer-sentence-selection file (any layout :func:`read_as2` reads).

    ``construction="pairs"`` (default) is the paper's (Vu and Moschitti, section 4): only
    questions with at least two correct sentences are kept; every ordered pair of two different
    correct sentences (t_i as the reference, t_j as the candidate) is a positive, and every correct
    t_i with an incorrect t_j a negative. Questions with fewer than two correct sentences are
    counted in ``dropped``.

    ``construction="one_reference"``: per question with at least one correct sentence, one correct
    sentence (drawn with ``seed``) becomes the reference and every other sentence a candidate with
    its own label (questions with a single correct sentence give negatives only);
    ``max_candidates`` caps the candidates per question by sampling (correct ones first kept).

    ``construction="sentences"``: the answer-sentence-selection rows themselves, for a reader
    (``A0(q,t)``, which reads only the question and the candidate): every sentence of a question
    with at least one correct sentence is a candidate with its own label (the reference, unused
    by a reader, is the question's first correct sentence).

    ``max_pairs_per_question`` keeps that many of a question's rows, drawn uniformly with ``seed``
    (``pairs`` grows with the square of the sentences); with ``per_label=True`` the cap applies to
    the positives and to the negatives separately (a balanced sample). ``off_topic`` adds that many
    negatives a question whose candidates are sentences of other questions (drawn with ``seed``):
    a reader must also rank text about something else low, which same-question sentences never
    teach.

    Example:

        >>> import json, os, tempfile
        >>> folder = tempfile.TemporaryDirectory()
        >>> path = os.path.join(folder.name, "as2.jsonl")
        >>> with open(path, "w") as out:
        ...     _ = out.write(json.dumps({"question": "who wrote hamlet", "candidates": [
        ...         {"sentence": "Shakespeare wrote Hamlet.", "label": 1},
        ...         {"sentence": "Hamlet is by Shakespeare.", "label": 1},
        ...         {"sentence": "Hamlet is a prince.", "label": 0}]}))
        >>> triples = load_as2_as_ava(path)
        >>> triples.candidates[:2], triples.labels.tolist()
        (['Hamlet is by Shakespeare.', 'Hamlet is a prince.'], [1, 0, 1, 0])
        >>> folder.cleanup()

    :param path: an AS2 file (see :func:`read_as2`).
    :param construction: ``pairs``, ``one_reference`` or ``sentences``.
    :param seed: the seed of every draw.
    :param max_pairs_per_question: the most rows a question keeps, or None.
    :param per_label: apply that cap to positives and negatives separately.
    :param max_candidates: candidates per question under ``one_reference``, or None.
    :param off_topic: negatives per question drawn from other questions' sentences.
    :returns: labelled :class:`Triples`; ``dropped`` counts the questions left out.
    :raises ValueError: for an unknown construction or an option that does not apply to it.
    """
    if construction not in AS2_CONSTRUCTIONS:
        raise ValueError(f"construction must be one of {AS2_CONSTRUCTIONS}, got {construction!r}")
    if construction != "one_reference" and max_candidates is not None:
        raise ValueError("max_candidates applies to construction='one_reference'; use max_pairs_per_question")
    rng = np.random.default_rng(seed)
    entries = read_as2(path)
    rows: list[tuple] = []  # (question, reference, candidate, label, line)
    need = 2 if construction == "pairs" else 1
    dropped_key = "fewer_than_two_correct" if construction == "pairs" else "no_correct_sentence"
    dropped = {dropped_key: 0}
    for k, entry in enumerate(entries):
        correct = [i for i, label in enumerate(entry.labels) if label == 1]
        if len(correct) < need:
            dropped[dropped_key] += 1
            continue
        if construction == "pairs":
            pairs = [(i, j) for i in correct for j in range(len(entry.labels))
                     if j != i and entry.sentences[j] != entry.sentences[i]]
        elif construction == "sentences":
            pairs = [(correct[0], j) for j in range(len(entry.labels))]
        else:
            ref = int(rng.choice(correct))
            others = [i for i in range(len(entry.labels)) if i != ref]
            if max_candidates is not None and len(others) > max_candidates:
                positives = [i for i in others if entry.labels[i] == 1]
                negatives = [i for i in others if entry.labels[i] == 0]
                keep_neg = max(0, max_candidates - len(positives))
                others = sorted(positives[:max_candidates] + rng.permutation(negatives)[:keep_neg].tolist())
            pairs = [(ref, i) for i in others]
        if max_pairs_per_question is not None:
            groups = ([[p for p in pairs if entry.labels[p[1]] == label] for label in (1, 0)] if per_label
                      else [pairs])
            pairs = sorted(pair for group in groups for pair in _draw(group, max_pairs_per_question, rng))
        rows += [(entry.question, entry.sentences[i], entry.sentences[j], entry.labels[j], entry.line)
                 for i, j in pairs]
        if off_topic:
            rows += _off_topic_rows(entries, k, correct[0], off_topic, rng)
    return Triples([r[0] for r in rows], [[r[1]] for r in rows], [r[2] for r in rows],
                   np.asarray([r[3] for r in rows], dtype=np.int64), ["as2"] * len(rows), [r[4] for r in rows],
                   dropped)


def _off_topic_rows(entries: list, k: int, reference: int, n: int, rng) -> list[tuple]:
    """``n`` negatives for question ``k``: sentences of other questions (never its own text)."""
    entry = entries[k]
    rows: list[tuple] = []
    own = set(entry.sentences)
    for _ in range(100 * n):  # bounded: other questions may hold only this question's sentences
        if len(rows) == n or len(entries) < 2:
            break
        other = entries[int(rng.integers(len(entries)))]
        if other is entry or not other.sentences:
            continue
        sentence = other.sentences[int(rng.integers(len(other.sentences)))]
        if sentence not in own:
            rows.append((entry.question, entry.sentences[reference], sentence, 0, entry.line))
    return rows


def concat_triples(parts: list) -> Triples:
    """Rows of several Triples one after another (question ids made distinct per part)."""
    out = Triples([], [], [], np.zeros(0, dtype=np.int64), [], [])
    systems: list = []
    question_ids: list = []
    labels = [out.require_labels()]
    for k, part in enumerate(parts):
        out.questions += part.questions
        out.references += part.references
        out.candidates += part.candidates
        labels.append(part.require_labels())
        systems += part.systems or ["all"] * len(part)
        question_ids += [(k, qid) for qid in (part.question_ids or range(len(part)))]
    out.labels, out.systems, out.question_ids = np.concatenate(labels), systems, question_ids
    return out
