"""Readers and writers for the TREC nugget formats and the TREC 2024 RAG nugget JSONL.

Formats (see docs/nuggets.md for examples):

* answer keys: ``Qid <qid>: <header>`` then ``<qid> <nugget#>\\t<vital|okay>\\t<description>``,
  blank lines between questions (2003 definition, 2004-2006 "other", 2005 relationship, ciQA);
  pyramid keys (2006/07): ``<qid>\\t<nugget#>\\t<weight>\\t<description>`` without headers;
* run files: ``<qid> <run-tag> <docid> <answer string>``; a ``NIL`` docid with no string is an
  empty response;
* judgement files (NIST ``.otherjudged``) and Nuggeteer assessment files: per (question, run), the
  submission ``<qid> <tag> <item#> <docid> <string>`` then the nugget part
  ``<qid> <tag> <item#> <nugget#>``; ``#`` lines are comments (assessment files use them to show
  the score and threshold behind each guessed nugget);
* RAG JSONL: ``{"qid", "answer_text", "nuggets": [{"text", "importance", "assignment"}]}``.

Every reader reports the file and 1-based line of a malformed record; nothing is skipped.
"""
from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass, field

from ..errors import InputFormatError
from ..io import can_read_twice, iter_jsonl, iter_lines, open_output, require_field

IMPORTANCES = ("vital", "okay")


@dataclass(frozen=True)
class Nugget:
    """One nugget of an answer key. ``importance`` is vital/okay (None in pyramid keys);
    ``weight`` is the pyramid weight (None in vital/okay keys)."""

    qid: str
    nugget_id: str
    description: str
    importance: str | None = None
    weight: float | None = None

    @property
    def is_vital(self) -> bool:
        return self.importance == "vital"


@dataclass
class Question:
    qid: str
    header: str | None = None  # text after ``Qid <qid>:`` (None for pyramid keys)
    nuggets: list[Nugget] = field(default_factory=list)

    def nugget(self, nugget_id: str) -> Nugget:
        for n in self.nuggets:
            if n.nugget_id == nugget_id:
                return n
        raise KeyError(f"question {self.qid} has no nugget {nugget_id!r}")


@dataclass
class AnswerKey:
    """Questions in file order; ``pyramid`` tells which scoring the key supports.

    Example:

        >>> from qascore.nuggets import AnswerKey, Run
        >>> from qascore.nuggets.formats import Nugget, Question
        >>> key = AnswerKey({"1": Question("1", "Hamlet", [Nugget("1", "1", "written by Shakespeare", "vital"),
        ...                                                Nugget("1", "2", "prince of Denmark", "okay")])})
        >>> len(key), key.questions["1"].nugget("2").importance
        (1, 'okay')
    """

    questions: dict[str, Question]
    pyramid: bool = False

    def __len__(self) -> int:
        return len(self.questions)

    def __getitem__(self, qid: str) -> Question:
        return self.questions[qid]

    def __iter__(self):
        return iter(self.questions.values())


def _parse_weight(text: str, path, lineno: int) -> float:
    try:
        weight = float(text)
    except ValueError:
        raise InputFormatError(path, lineno, f"pyramid weight must be a number, got {text!r}") from None
    if not math.isfinite(weight) or weight < 0:
        raise InputFormatError(path, lineno, f"pyramid weight must be finite and >= 0, got {text!r}")
    return weight


def read_answer_key(path) -> AnswerKey:
    """Read a vital/okay answer key (with ``Qid`` headers) or a pyramid key (tab-separated weights).

    Example:

        >>> import os, tempfile
        >>> folder = tempfile.TemporaryDirectory()
        >>> path = os.path.join(folder.name, "key.txt")
        >>> with open(path, "w") as out:
        ...     _ = out.write("Qid 1: Hamlet\\n1 1\\tvital\\twritten by Shakespeare\\n"
        ...                   "1 2\\tokay\\tprince of Denmark\\n")
        >>> key = read_answer_key(path)
        >>> [(n.nugget_id, n.importance) for n in key.questions["1"].nuggets], key.pyramid
        ([('1', 'vital'), ('2', 'okay')], False)
        >>> folder.cleanup()

    :param path: the key file, or ``-``.
    :returns: an :class:`AnswerKey`.
    :raises qascore.errors.InputFormatError: naming the file and line of a malformed line, a repeated
        nugget, or a file that mixes the two kinds.
    """
    questions: dict[str, Question] = {}
    seen: dict[tuple[str, str], int] = {}
    kind = None  # "key" or "pyramid": one file holds one kind
    current: Question | None = None
    for lineno, line in iter_lines(path):
        if not line.strip():
            current = None
            continue
        if line.startswith("Qid "):
            head, sep, text = line[4:].partition(":")
            qid = head.strip()
            if not sep or not qid or " " in qid:
                raise InputFormatError(path, lineno, "expected a header 'Qid <qid>: <text>'")
            if qid in questions:
                raise InputFormatError(path, lineno, f"question {qid} appears twice")
            current = questions[qid] = Question(qid, text.strip())
            continue
        cols = line.split("\t")
        if len(cols) == 4:
            line_kind = "pyramid"
            qid, nid, weight_text, description = (c.strip() for c in cols)
            weight, importance = _parse_weight(weight_text, path, lineno), None
        elif len(cols) == 3:
            line_kind = "key"
            ids = cols[0].split()
            if len(ids) != 2:
                raise InputFormatError(path, lineno, "expected '<qid> <nugget#>' before the first tab")
            qid, nid = ids
            importance, description, weight = cols[1].strip(), cols[2].strip(), None
            if importance not in IMPORTANCES:
                raise InputFormatError(path, lineno, f"importance must be vital or okay, got {importance!r}")
        else:
            raise InputFormatError(
                path, lineno,
                "expected '<qid> <nugget#>\\t<vital|okay>\\t<description>', "
                "'<qid>\\t<nugget#>\\t<weight>\\t<description>' or 'Qid <qid>: <text>'",
            )
        if not qid or not nid:
            raise InputFormatError(path, lineno, "empty question or nugget id")
        if kind is None:
            kind = line_kind
        elif kind != line_kind:
            raise InputFormatError(path, lineno, f"{line_kind} line in a {kind} file")
        if (qid, nid) in seen:
            raise InputFormatError(
                path, lineno, f"duplicate nugget {nid} of question {qid} (first on line {seen[qid, nid]})"
            )
        seen[qid, nid] = lineno
        if kind == "key":
            if current is None or current.qid != qid:
                raise InputFormatError(path, lineno, f"nugget of question {qid} outside its 'Qid {qid}:' block")
        else:
            current = questions.setdefault(qid, Question(qid))
        current.nuggets.append(Nugget(qid, nid, description, importance, weight))
    return AnswerKey(questions, pyramid=kind == "pyramid")


def write_answer_key(key: AnswerKey, path) -> None:
    with open_output(path) as out:
        for q in key:
            if key.pyramid:
                for n in q.nuggets:
                    out.write(f"{q.qid}\t{n.nugget_id}\t{n.weight!r}\t{n.description}\n")
                continue
            out.write(f"Qid {q.qid}: {q.header or ''}\n")
            for n in q.nuggets:
                out.write(f"{q.qid} {n.nugget_id}\t{n.importance}\t{n.description}\n")
            out.write("\n")


# ---------------------------------------------------------------- runs and judgements


@dataclass(frozen=True)
class Response:
    """One response item. ``item`` is its 1-based number within (run, question); NIL has text ''."""

    qid: str
    run_tag: str
    item: int
    docid: str
    text: str


@dataclass
class Run:
    """One system's responses, per question in file order.

    Example:

        >>> run = Run("sys1")
        >>> run.add("1", "doc1", "Shakespeare wrote the play")
        Response(qid='1', run_tag='sys1', item=1, docid='doc1', text='Shakespeare wrote the play')
        >>> len(run.responses["1"])
        1
    """

    tag: str
    responses: dict[str, list[Response]] = field(default_factory=dict)

    def add(self, qid: str, docid: str, text: str, item: int | None = None) -> Response:
        items = self.responses.setdefault(qid, [])
        resp = Response(qid, self.tag, len(items) + 1 if item is None else item, docid, text)
        items.append(resp)
        return resp


def _parse_run_line(line: str, path, lineno: int) -> tuple[str, str, str, str]:
    cols = line.split(None, 3)
    if len(cols) == 3 and cols[2] == "NIL":
        return cols[0], cols[1], "NIL", ""
    if len(cols) < 4:
        raise InputFormatError(
            path, lineno, "expected '<qid> <run-tag> <docid> <answer string>' (or '<qid> <run-tag> NIL')"
        )
    return cols[0], cols[1], cols[2], cols[3].strip()


def _run_lines(path) -> Iterator[tuple[str, str, str, str]]:
    """(qid, run tag, docid, answer string) of each non-blank line of a run file."""
    for lineno, line in iter_lines(path):
        if line.strip():
            yield _parse_run_line(line, path, lineno)


def read_runs(path) -> dict[str, Run]:
    """Read a run file (it may hold several run tags): run tag -> Run.

    Example:

        >>> import os, tempfile
        >>> folder = tempfile.TemporaryDirectory()
        >>> path = os.path.join(folder.name, "runs.txt")
        >>> with open(path, "w") as out:
        ...     _ = out.write("1 sys1 doc1 Shakespeare wrote the play\\n1 sys2 NIL\\n")
        >>> runs = read_runs(path)
        >>> sorted(runs), runs["sys2"].responses["1"][0].text
        (['sys1', 'sys2'], '')
        >>> folder.cleanup()

    :param path: the run file, or ``-``.
    :returns: run tag -> :class:`Run`, in file order.
    :raises qascore.errors.InputFormatError: naming the file and line of a malformed line.
    """
    runs: dict[str, Run] = {}
    for qid, tag, docid, text in _run_lines(path):
        runs.setdefault(tag, Run(tag)).add(qid, docid, text)
    return runs


def _tags_are_grouped(path) -> bool:
    """Whether every run tag's lines are consecutive (runs one after another, as submitted runs
    are concatenated); checked on a first reading of the tags alone."""
    closed: set[str] = set()
    current = None
    for _, tag, _, _ in _run_lines(path):
        if tag != current:
            if tag in closed:
                return False
            if current is not None:
                closed.add(current)
            current = tag
    return True


def iter_runs(path) -> Iterator[Run]:
    """The runs of a run file in the order of :func:`read_runs`, one at a time when the file can be
    read twice and its run tags are grouped (each run held only until the next starts); otherwise
    (standard input, a pipe, interleaved tags) the file is read whole first."""
    if not can_read_twice(path) or not _tags_are_grouped(path):
        yield from read_runs(path).values()
        return
    run = None
    for qid, tag, docid, text in _run_lines(path):
        if run is None or tag != run.tag:
            if run is not None:
                yield run
            run = Run(tag)
        run.add(qid, docid, text)
    if run is not None:
        yield run


def write_run(run: Run, path) -> None:
    with open_output(path) as out:
        for qid, items in run.responses.items():
            for r in items:
                out.write(
                    f"{qid} {run.tag} NIL\n"
                    if r.docid == "NIL" and not r.text
                    else f"{qid} {run.tag} {r.docid} {r.text}\n"
                )


@dataclass
class Judgements:
    """Judged runs: each run's responses plus, per (run tag, qid), item -> nugget ids assigned.

    Comments (assessment files) are kept per (tag, qid, item, nugget) so writers can round-trip them.

    Example:

        >>> run = Run("sys1")
        >>> _ = run.add("1", "doc1", "Shakespeare wrote the play")
        >>> judged = Judgements({"sys1": run}, {("sys1", "1"): {1: ["1"]}})
        >>> judged.nuggets_of("sys1", "1", 1)
        ['1']
    """

    runs: dict[str, Run] = field(default_factory=dict)
    assigned: dict[tuple[str, str], dict[int, list[str]]] = field(default_factory=dict)

    def nuggets_of(self, tag: str, qid: str, item: int) -> list[str]:
        return self.assigned.get((tag, qid), {}).get(item, [])


def read_judgements(path) -> Judgements:
    """Read the two-part ``.otherjudged`` layout (also Nuggeteer assessment files).

    A line with exactly four fields whose last is an integer is a nugget line; it must name an item
    already listed for its (question, run), and after it that block takes no further items.

    Example:

        >>> import os, tempfile
        >>> folder = tempfile.TemporaryDirectory()
        >>> path = os.path.join(folder.name, "judged.txt")
        >>> with open(path, "w") as out:
        ...     _ = out.write("1 sys1 1 doc1 Shakespeare wrote the play\\n1 sys1 1 1\\n")
        >>> read_judgements(path).assigned
        {('sys1', '1'): {1: ['1']}}
        >>> folder.cleanup()

    :param path: the judgement file, or ``-``.
    :returns: the :class:`Judgements`.
    :raises qascore.errors.InputFormatError: naming the file and line of a malformed line.
    """
    judged = Judgements()
    closed: set[tuple[str, str]] = set()
    seen_items: dict[tuple[str, str], dict[int, int]] = {}
    for lineno, line in iter_lines(path):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        cols = line.split(None, 4)
        if len(cols) < 4:
            raise InputFormatError(
                path, lineno, "expected '<qid> <tag> <item#> <docid> <string>' or '<qid> <tag> <item#> <nugget#>'"
            )
        qid, tag, item_text = cols[0], cols[1], cols[2]
        try:
            item = int(item_text)
        except ValueError:
            raise InputFormatError(path, lineno, f"item number must be an integer, got {item_text!r}") from None
        block = (tag, qid)
        items = seen_items.setdefault(block, {})
        if len(cols) == 4 and cols[3].isdigit():
            if item not in items:
                raise InputFormatError(
                    path, lineno, f"nugget line names item {item}, which question {qid} of run {tag} does not list"
                )
            nuggets = judged.assigned.setdefault(block, {}).setdefault(item, [])
            if cols[3] in nuggets:
                raise InputFormatError(path, lineno, f"nugget {cols[3]} assigned twice to item {item}")
            nuggets.append(cols[3])
            closed.add(block)
            continue
        if block in closed:
            raise InputFormatError(path, lineno, f"response item after the nugget lines of question {qid}, run {tag}")
        if item in items:
            raise InputFormatError(path, lineno, f"item {item} of question {qid}, run {tag} repeats line {items[item]}")
        items[item] = lineno
        text = cols[4].strip() if len(cols) == 5 else ""
        judged.runs.setdefault(tag, Run(tag)).add(qid, cols[3], text, item=item)
    return judged


def write_judgements(judged: Judgements, path, comments: dict | None = None) -> None:
    """Write the two-part layout. ``comments[(tag, qid, item, nugget)]`` adds a ``#`` line before a
    nugget line (assessment files say there why the nugget was guessed).

    Example:

        >>> import os, tempfile
        >>> run = Run("sys1")
        >>> _ = run.add("1", "doc1", "Shakespeare wrote the play")
        >>> folder = tempfile.TemporaryDirectory()
        >>> path = os.path.join(folder.name, "judged.txt")
        >>> write_judgements(Judgements({"sys1": run}, {("sys1", "1"): {1: ["1"]}}), path)
        >>> with open(path) as written:
        ...     print(written.read().strip())
        1 sys1 1 doc1 Shakespeare wrote the play
        1 sys1 1 1
        >>> folder.cleanup()

    :param judged: the :class:`Judgements` to write.
    :param path: the output file, or ``-`` for stdout (a file is replaced only when complete).
    :param comments: optional ``#`` comments per (tag, qid, item, nugget).
    """
    with open_output(path) as out:
        out.write(judgement_lines(judged, comments))


def judgement_lines(judged: Judgements, comments: dict | None = None) -> str:
    """The lines :func:`write_judgements` writes: a block per (run, question), so the blocks of
    runs judged one at a time can be written one after another."""
    comments = comments or {}
    lines = []
    for tag, run in judged.runs.items():
        for qid, items in run.responses.items():
            for r in items:
                lines.append(f"{qid} {tag} {r.item} {r.docid} {r.text}".rstrip() + "\n")
            for item, nuggets in judged.assigned.get((tag, qid), {}).items():
                for nid in nuggets:
                    note = comments.get((tag, qid, item, nid))
                    if note:
                        lines.append(f"# {note}\n")
                    lines.append(f"{qid} {tag} {item} {nid}\n")
    return "".join(lines)


# ---------------------------------------------------------------- TREC 2024 RAG JSONL


@dataclass(frozen=True)
class RagNugget:
    text: str
    importance: str  # as written; anything but vital/okay is a malformed label
    assignment: str  # support / partial_support / not_support, or a malformed label


@dataclass(frozen=True)
class RagTopic:
    qid: str
    answer_text: str
    nuggets: tuple[RagNugget, ...]
    run_id: str | None = None
    query: str = ""  # the topic's question, where the file gives it


def read_rag_assignments(path) -> list[RagTopic]:
    """Read nugget-assignment JSONL (nuggetizer output). Malformed *labels* are kept as written
    (they are data, see :mod:`qascore.nuggets.rag`); malformed *structure* is an error.

    Example:

        >>> import json, os, tempfile
        >>> folder = tempfile.TemporaryDirectory()
        >>> path = os.path.join(folder.name, "assignments.jsonl")
        >>> with open(path, "w") as out:
        ...     _ = out.write(json.dumps({"qid": "1", "answer_text": "Shakespeare wrote Hamlet.",
        ...         "nuggets": [{"text": "Shakespeare", "importance": "vital", "assignment": "support"}]}))
        >>> [topic] = read_rag_assignments(path)
        >>> topic.qid, topic.nuggets[0].assignment
        ('1', 'support')
        >>> folder.cleanup()

    :param path: the JSONL file, or ``-``.
    :returns: the topics, each a ``RagTopic``, in file order.
    :raises qascore.errors.InputFormatError: naming the file and line of a malformed record or a
        repeated topic.
    """
    return list(iter_rag_assignments(path))


def iter_rag_assignments(path) -> Iterator[RagTopic]:
    """The topics of a nugget-assignment JSONL file one at a time (see :func:`read_rag_assignments`)."""
    seen: dict[str, int] = {}
    for lineno, record in iter_jsonl(path):
        qid = require_field(record, "qid", (str, int), path, lineno)
        qid = str(qid)
        if qid in seen:
            raise InputFormatError(path, lineno, f"topic {qid} repeats line {seen[qid]}")
        seen[qid] = lineno
        nuggets = []
        for i, n in enumerate(require_field(record, "nuggets", list, path, lineno)):
            if not isinstance(n, dict):
                raise InputFormatError(path, lineno, f"nuggets[{i}] must be an object")
            try:
                nuggets.append(
                    RagNugget(*(require_field(n, k, str, path, lineno) for k in ("text", "importance", "assignment")))
                )
            except InputFormatError as exc:
                raise InputFormatError(path, lineno, f"nuggets[{i}]: {exc.reason}") from None
        answer = record.get("answer_text", "")
        if not isinstance(answer, str):
            raise InputFormatError(path, lineno, "field 'answer_text' must be str")
        run_id = record.get("run_id")
        query = record.get("query", "")
        if not isinstance(query, str):
            raise InputFormatError(path, lineno, "field 'query' must be str")
        yield RagTopic(qid, answer, tuple(nuggets), None if run_id is None else str(run_id), query)


def write_rag_assignments(topics, path) -> None:
    with open_output(path) as out:
        out.write(rag_assignment_lines(topics))


def rag_assignment_lines(topics) -> str:
    """The nugget-assignment JSONL lines of ``topics``, as :func:`read_rag_assignments` reads them."""
    lines = []
    for t in topics:
        record = {
            **({"query": t.query} if t.query else {}),
            "qid": t.qid,
            "answer_text": t.answer_text,
            "nuggets": [
                {"text": n.text, "importance": n.importance, "assignment": n.assignment} for n in t.nuggets
            ],
        }
        if t.run_id is not None:
            record["run_id"] = t.run_id
        lines.append(json.dumps(record, ensure_ascii=False) + "\n")
    return "".join(lines)
