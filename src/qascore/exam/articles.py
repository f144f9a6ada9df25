"""Readers of system articles: original EXAM JSONL, CAR-style runs, workbench paragraphs, plain text.

All return :class:`Articles` (``system -> query_id -> paragraphs``).
"""
from __future__ import annotations

from pathlib import Path

from ..errors import InputFormatError, display_name
from ..io import iter_jsonl, iter_lines, open_output, read_head, require_field, write_jsonl
from .records import Articles


def _query_of_squid(squid: str) -> str:
    # The original tool's ids are "anything:<question-set-id>" (e.g. tqa2:L_0432 -> L_0432).
    return squid.split(":", 1)[1] if ":" in squid else squid


def read_original_jsonl(path, system: str | None = None) -> Articles:
    """One article per line: ``{squid: "prefix:<query>", title, paragraphs: [{para_body: [{text}]}]}``."""
    system = system or _system_name(path)
    articles = Articles()
    for lineno, rec in iter_jsonl(path):
        squid = require_field(rec, "squid", str, path, lineno)
        paragraphs = require_field(rec, "paragraphs", list, path, lineno)
        texts = []
        for i, para in enumerate(paragraphs):
            body = para.get("para_body") if isinstance(para, dict) else None
            if not isinstance(body, list):
                raise InputFormatError(path, lineno, f"paragraph {i}: missing list 'para_body'")
            try:
                texts.append("".join(part["text"] for part in body))
            except (KeyError, TypeError):
                raise InputFormatError(path, lineno, f"paragraph {i}: every para_body item needs a 'text'") from None
        try:
            articles.add(system, _query_of_squid(squid), texts)
        except ValueError as exc:
            raise InputFormatError(path, lineno, str(exc)) from None
    return articles


def read_paragraph_collection(path) -> dict[str, str]:
    """Paragraph texts by id: JSONL ``{para_id|paragraph_id|id, text}`` or TSV ``id<TAB>text``
    (by the name's suffix; any other name, a pipe or ``-``, by its first byte)."""
    texts: dict[str, str] = {}
    name = str(path).removesuffix(".gz")
    jsonl = name.endswith((".jsonl", ".json")) or (
        not name.endswith((".tsv", ".txt")) and _guess_by_content(path) != "car")  # a pipe: by its first byte
    rows = iter_jsonl(path) if jsonl else ((n, line) for n, line in iter_lines(path) if line.strip())
    for lineno, row in rows:
        if jsonl:
            pid = next((row[k] for k in ("para_id", "paragraph_id", "id") if isinstance(row, dict) and k in row), None)
            if not isinstance(pid, str):
                raise InputFormatError(path, lineno, "missing string paragraph id (para_id, paragraph_id or id)")
            text = require_field(row, "text", str, path, lineno)
        else:
            if "\t" not in row:
                raise InputFormatError(path, lineno, "expected 'paragraph_id<TAB>text'")
            pid, text = row.split("\t", 1)
        if pid in texts:
            raise InputFormatError(path, lineno, f"duplicate paragraph id {pid!r}")
        texts[pid] = text
    return texts


def read_car_run(path, paragraphs: dict[str, str], *, top_k: int = 20, strip_query_prefix: bool = False) -> Articles:
    """TREC run lines ``query Q0 paragraph rank score system``: each system's top ``top_k`` per query.

    Ranking follows the rank column (ties by higher score); several systems may share one file.
    """
    if top_k < 1:
        raise ValueError(f"top_k must be >= 1, got {top_k}")
    ranked: dict[tuple[str, str], list[tuple[int, float, str]]] = {}
    seen: set[tuple[str, str, str]] = set()
    for lineno, line in iter_lines(path):
        if not line.strip():
            continue
        parts = line.split()
        if len(parts) != 6:
            raise InputFormatError(path, lineno,
                                   f"expected 6 columns 'query Q0 paragraph rank score system', got {len(parts)}")
        query, _, pid, rank, score, system = parts
        try:
            rank_i, score_f = int(rank), float(score)
        except ValueError:
            raise InputFormatError(path, lineno, "rank must be an integer and score a number") from None
        if pid not in paragraphs:
            raise InputFormatError(path, lineno, f"paragraph {pid!r} is not in the paragraph collection")
        if strip_query_prefix:
            query = _query_of_squid(query)
        if (system, query, pid) in seen:
            raise InputFormatError(path, lineno, f"duplicate paragraph {pid!r} for query {query!r} in run {system!r}")
        seen.add((system, query, pid))
        ranked.setdefault((system, query), []).append((rank_i, -score_f, pid))
    articles = Articles()
    for (system, query), rows in ranked.items():
        rows.sort()
        articles.add(system, query, [paragraphs[pid] for _, _, pid in rows[:top_k]])
    return articles


def read_workbench_paragraphs(path, *, top_k: int = 20) -> Articles:
    """Workbench JSONL.gz lines ``[query_id, [FullParagraphData]]``: systems are the ranking methods."""
    ranked: dict[tuple[str, str], list[tuple[int, float, str]]] = {}
    for lineno, rec in iter_jsonl(path, array_document=False):  # its lines are arrays
        if not (isinstance(rec, list) and len(rec) == 2 and isinstance(rec[0], str) and isinstance(rec[1], list)):
            raise InputFormatError(path, lineno, "expected [query_id, [paragraph, ...]]")
        query_id, paras = rec
        for para in paras:
            text = require_field(para, "text", str, path, lineno)
            data = para.get("paragraph_data") or {}
            for r in data.get("rankings") or []:
                if not (isinstance(r, dict) and isinstance(r.get("method"), str) and isinstance(r.get("rank"), int)):
                    raise InputFormatError(path, lineno,
                                           "each ranking needs a string 'method' and an int 'rank'")
                ranked.setdefault((r["method"], query_id), []).append((r["rank"], -float(r.get("score") or 0.0), text))
    articles = Articles()
    for (system, query), rows in ranked.items():
        rows.sort(key=lambda r: (r[0], r[1]))
        articles.add(system, query, [text for _, _, text in rows[:top_k]])
    return articles


def read_text_dir(path, system: str | None = None) -> Articles:
    """A folder of ``<query_id>.txt`` files, one system; paragraphs are separated by blank lines."""
    path = Path(path)
    system = system or path.name
    articles = Articles()
    for file in sorted(path.glob("*.txt")):
        text = "\n".join(line for _, line in iter_lines(file))
        paragraphs = [p.strip() for p in text.split("\n\n") if p.strip()]
        articles.add(system, file.stem, paragraphs)
    if not articles.systems:
        raise InputFormatError(path, None, "no <query_id>.txt files in this folder")
    return articles


def _system_name(path) -> str:
    if str(path) == "-":
        return "stdin"
    name = Path(path).name
    for suffix in (".gz", ".jsonl", ".json", ".run", ".txt"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return name


def _guess_by_content(path) -> str:
    # read_head: a one-shot input's head is read once and handed on to the reader
    head = read_head(path).decode("utf-8", "replace").removeprefix("\ufeff").lstrip()
    return "workbench" if head.startswith("[") else "original" if head.startswith("{") else "car"


def article_format(path, fmt: str = "auto") -> str:
    """The format :func:`read_articles` reads ``path`` in: ``fmt``, or for ``auto`` the one its
    shape or first bytes give (read once from a pipe, see :func:`qascore.io.read_head`)."""
    if fmt != "auto":
        return fmt
    p = Path(path)
    return ("text" if p.is_dir() else "workbench" if p.name.endswith(".jsonl.gz")
            else "original" if p.name.endswith(".jsonl") else _guess_by_content(path))


def read_articles(path, fmt: str = "auto", *, paragraphs: dict[str, str] | None = None, top_k: int = 20,
                  strip_query_prefix: bool = False) -> Articles:
    """Read articles by format name (``original``, ``car``, ``workbench``, ``text``) or by the path's shape.

    ``auto``: a folder is ``text``; ``.jsonl.gz`` is ``workbench``; ``.jsonl`` is ``original``;
    any other input (a pipe, standard input, another name) by its first character: ``[`` is
    ``workbench``, ``{`` is ``original``, anything else a CAR run (which needs ``paragraphs``).

    Example:

        >>> import json, os, tempfile
        >>> folder = tempfile.TemporaryDirectory()
        >>> path = os.path.join(folder.name, "sys1.jsonl")
        >>> with open(path, "w") as out:
        ...     _ = out.write(json.dumps(
        ...         {"squid": "tqa2:q1", "title": "q1", "paragraphs": [{"para_body": [{"text": "Mars is red."}]}]}))
        >>> articles = read_articles(path)
        >>> articles.systems, articles.articles("sys1")
        (['sys1'], {'q1': ['Mars is red.']})
        >>> folder.cleanup()

    :param path: a file, a folder of ``<query_id>.txt`` files, or ``-``.
    :param fmt: ``auto``, ``original``, ``car``, ``workbench`` or ``text``.
    :param paragraphs: paragraph texts by id (a CAR run names paragraphs by id).
    :param top_k: paragraphs per query and system kept from a ranking.
    :param strip_query_prefix: drop a ``prefix:`` from a CAR run's query ids.
    :returns: the :class:`~qascore.exam.records.Articles`.
    :raises ValueError: for an unknown format or a CAR run without ``paragraphs``.
    :raises qascore.errors.InputFormatError: naming the file and line of a bad record.
    """
    p = Path(path)
    fmt = article_format(path, fmt)
    if fmt == "text":
        return read_text_dir(p)
    if fmt == "workbench":
        return read_workbench_paragraphs(p, top_k=top_k)
    if fmt == "original":
        return read_original_jsonl(p)
    if fmt == "car":
        if paragraphs is None:
            raise ValueError(f"{display_name(p)}: a CAR-style run needs a paragraph collection (id -> text)")
        return read_car_run(p, paragraphs, top_k=top_k, strip_query_prefix=strip_query_prefix)
    raise ValueError(f"unknown article format {fmt!r}; known: original, car, workbench, text")


def write_original_jsonl(articles: Articles, system: str, path, prefix: str = "tqa2") -> None:
    """Write one system's articles in the original tool's JSONL (``-`` for stdout)."""
    with open_output(path) as fh:
        write_jsonl(({"squid": f"{prefix}:{query_id}", "title": query_id,
                      "paragraphs": [{"para_body": [{"text": p}]} for p in paras]}
                     for query_id, paras in articles.articles(system).items()), fh)
