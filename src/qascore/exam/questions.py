"""Readers of question banks: TQA-style JSON, the workbench's QueryQuestionBank JSONL, our JSONL.

Every reader reports the file (and line, for line formats) of a malformed record.
"""
from __future__ import annotations

from ..errors import InputFormatError
from ..io import iter_jsonl, open_output, read_head, read_json, require_field, write_jsonl
from .records import ExamQuestion, QuestionBank


def _checked(question: ExamQuestion, path, lineno):
    try:
        question.validate()
    except ValueError as exc:
        raise InputFormatError(path, lineno, str(exc)) from None
    return question


def _bank(questions, path) -> QuestionBank:
    try:
        return QuestionBank(questions)
    except ValueError as exc:
        raise InputFormatError(path, None, str(exc)) from None


def read_tqa_json(path, *, question_types=("nonDiagramQuestions",)) -> QuestionBank:
    """TQA JSON (a list of lessons): query id = ``globalID``; the paper uses non-diagram questions."""
    lessons = read_json(path)
    if not isinstance(lessons, list):
        raise InputFormatError(path, None, "expected a JSON list of lessons")
    out = []
    for i, lesson in enumerate(lessons):
        where = f"lesson {i}"
        if not isinstance(lesson, dict) or not isinstance(lesson.get("globalID"), str):
            raise InputFormatError(path, None, f"{where}: missing string field 'globalID'")
        query_id = lesson["globalID"]
        groups = lesson.get("questions", {})
        for qtype in question_types:
            for qid, q in (groups.get(qtype) or {}).items():
                try:
                    text = q["beingAsked"]["processedText"]
                    choices = {label: c["processedText"] for label, c in q["answerChoices"].items()}
                    key = q["correctAnswer"]["processedText"]
                except (KeyError, TypeError) as exc:
                    raise InputFormatError(path, None,
                                           f"{where} ({query_id}), question {qid}: missing {exc}") from None
                key = key.strip().rstrip(".").strip().lower() if isinstance(key, str) else key
                out.append(_checked(ExamQuestion(query_id, qid, text, choices, key), path, None))
    return _bank(out, path)


def read_workbench_bank(path) -> QuestionBank:
    """The workbench's QueryQuestionBank JSONL(.gz).

    One query a line: ``{query_id, items: [{question_id, question_text, gold_answers?}]}``.

    Questions there are free text; those without ``gold_answers`` cannot be graded and are an error.
    """
    out = []
    for lineno, rec in iter_jsonl(path):
        query_id = require_field(rec, "query_id", str, path, lineno)
        items = require_field(rec, "items", list, path, lineno)
        for item in items:
            qid = require_field(item, "question_id", str, path, lineno)
            text = require_field(item, "question_text", str, path, lineno)
            gold = item.get("gold_answers") or []
            if isinstance(gold, str):
                gold = [gold]
            if not isinstance(gold, list) or not all(isinstance(g, str) for g in gold):
                raise InputFormatError(path, lineno, f"question {qid}: gold_answers must be a list of strings")
            out.append(_checked(ExamQuestion(query_id, qid, text, gold_answers=tuple(gold)), path, lineno))
    return _bank(out, path)


def read_simple_jsonl(path) -> QuestionBank:
    """Our JSONL: ``{query_id, question_id, question, choices: {label: text}, key}`` or ``gold_answers``."""
    out = []
    for lineno, rec in iter_jsonl(path):
        query_id = require_field(rec, "query_id", str, path, lineno)
        qid = require_field(rec, "question_id", str, path, lineno)
        text = require_field(rec, "question", str, path, lineno)
        choices = rec.get("choices") or {}
        if not isinstance(choices, dict) or not all(isinstance(v, str) for v in choices.values()):
            raise InputFormatError(path, lineno, "field 'choices' must map labels to strings")
        key = rec.get("key")
        if key is not None and not isinstance(key, str):
            raise InputFormatError(path, lineno, "field 'key' must be a string label")
        gold = rec.get("gold_answers") or []
        if not isinstance(gold, list) or not all(isinstance(g, str) for g in gold):
            raise InputFormatError(path, lineno, "field 'gold_answers' must be a list of strings")
        out.append(_checked(ExamQuestion(query_id, qid, text, choices, key, tuple(gold)), path, lineno))
    return _bank(out, path)


def _simple_record(q: ExamQuestion) -> dict:
    rec: dict[str, object] = {"query_id": q.query_id, "question_id": q.question_id, "question": q.text}
    if q.choices:
        rec["choices"] = dict(q.choices)
        rec["key"] = q.key
    if q.gold_answers:
        rec["gold_answers"] = list(q.gold_answers)
    return rec


def write_simple_jsonl(bank: QuestionBank, path) -> None:
    """Write a bank as our JSONL (``-`` for stdout; a file is replaced only when complete)."""
    with open_output(path) as fh:
        write_jsonl(map(_simple_record, bank), fh)


def read_question_bank(path, fmt: str = "auto") -> QuestionBank:
    """Read a bank by format name (``tqa``, ``workbench``, ``jsonl``) or guess it from the content.

    Example:

        >>> import json, os, tempfile
        >>> folder = tempfile.TemporaryDirectory()
        >>> path = os.path.join(folder.name, "bank.jsonl")
        >>> with open(path, "w") as out:
        ...     _ = out.write(json.dumps({"query_id": "q1", "question_id": "1",
        ...         "question": "Which planet is red?", "choices": {"A": "Venus", "B": "Mars"}, "key": "B"}))
        >>> bank = read_question_bank(path)
        >>> bank.query_ids, [q.key for q in bank]
        (['q1'], ['B'])
        >>> folder.cleanup()

    :param path: a TQA JSON file, a workbench bank (JSONL, ``.gz``), our JSONL, or ``-``.
    :param fmt: ``auto``, ``tqa``, ``workbench`` or ``jsonl``.
    :returns: a :class:`~qascore.exam.records.QuestionBank`.
    :raises ValueError: for an unknown format.
    :raises qascore.errors.InputFormatError: naming the file and line of a bad record.
    """
    readers = {"tqa": read_tqa_json, "workbench": read_workbench_bank, "jsonl": read_simple_jsonl}
    if fmt == "auto":
        fmt = _guess_bank_format(path)
    try:
        reader = readers[fmt]
    except KeyError:
        raise ValueError(f"unknown question bank format {fmt!r}; known: {', '.join(readers)}") from None
    return reader(path)


def _guess_bank_format(path) -> str:
    # read_head: from a pipe or standard input the head is read once and handed to the reader
    head = read_head(path).decode("utf-8", "replace").removeprefix("\ufeff").lstrip()
    if head.startswith("["):  # TQA lessons, or the records of a JSON lines bank as one JSON array
        if '"query_id"' not in head:
            return "tqa"
        first = head
    else:
        first = head.split("\n", 1)[0]
    return "workbench" if '"items"' in first else "jsonl"


__all__ = [
    "read_tqa_json", "read_workbench_bank", "read_simple_jsonl", "write_simple_jsonl",
    "read_question_bank",
]
