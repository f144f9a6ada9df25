"""Tables of systems x metrics as sacrebleu prints them through tabulate: ``grid`` (tabulate's
``fancy_grid``, box-drawing characters, cells of several lines) and ``latex`` (``latex_booktabs``),
the first column right-aligned and the others centred, character for character.

Layout rules (tabulate's): a column whose every cell reads as a number, one of them not an
integer, is written as numbers with the table's decimals (a system file named ``1.10`` shows as
``1.1``); a column is as wide as its widest line, and at least its header plus two; every cell is
padded by one space each side; centring puts the odd space on the right; cells lose their outer
whitespace. Widths are what a terminal shows: ANSI colour codes count nothing, East Asian wide
characters two, combining marks nothing. LaTeX cells are escaped after padding (so a cell with
``_`` or ``%`` comes out wider than its column, as tabulate writes it).
"""
from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Sequence

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_LATEX_ESCAPES = str.maketrans({
    "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "^": r"\^{}", "{": r"\{", "}": r"\}",
    "~": r"\textasciitilde{}", "\\": r"\textbackslash{}", "<": r"\ensuremath{<}", ">": r"\ensuremath{>}",
})
_LINE_BREAK = re.compile("[\r\n]")
_THOUSANDS = re.compile(r"^(([+-]?[0-9]{1,3})(?:,([0-9]{3}))*)?(?(1)\.[0-9]*|\.[0-9]+)?$")
_EMPTY, _BOOL, _INT, _FLOAT, _STR = range(5)  # tabulate's column types, least general first


def _converts(kind: type, text: str) -> bool:
    try:
        kind(text)
        return True
    except ValueError:
        return False


def _cell_type(text: str) -> int:
    """What tabulate reads a cell as (colour codes removed)."""
    if not text:
        return _EMPTY
    if text in ("True", "False"):
        return _BOOL
    if _converts(int, text) or (_THOUSANDS.match(text) and "." not in text):
        return _INT
    if _converts(float, text):
        value = float(text)
        if not (math.isinf(value) or math.isnan(value)) or text.lower() in ("inf", "-inf", "nan"):
            return _FLOAT
    return _FLOAT if _THOUSANDS.match(text) else _STR


def _as_numbers(column: Sequence[str], decimals: int, colored: bool) -> list[str]:
    """``column`` as tabulate writes it: re-formatted with ``decimals`` when it is a column of
    numbers that are not all integers (a table with colour codes anywhere keeps thousands
    separators as they are: tabulate's reading of coloured numbers)."""
    if max((_cell_type(_ANSI.sub("", cell)) for cell in column), default=_EMPTY) != _FLOAT:
        return list(column)
    cells = []
    for cell in column:
        raw = _ANSI.sub("", cell) if colored else cell.replace(",", "")
        try:
            number = format(float(raw), f".{decimals}f")
        except ValueError:
            cells.append(cell)
            continue
        cells.append(cell.replace(raw, number) if colored else number)
    return cells


def display_width(text: str) -> int:
    """Columns ``text`` takes on a terminal (one line; colour codes removed)."""
    text = _ANSI.sub("", text)
    if text.isascii():
        return len(text)
    width = 0
    for char in text:
        if unicodedata.combining(char):
            continue
        width += 2 if unicodedata.east_asian_width(char) in "WF" else 1
    return width


def _align(text: str, width: int, how: str) -> str:
    pad = width - display_width(text)
    if how == "right":
        return " " * pad + text
    return " " * (pad // 2) + text + " " * (pad - pad // 2)


def _aligned_columns(headers: Sequence[str], columns: Sequence[Sequence[str]], decimals: int, colored: bool,
                     multiline: bool) -> tuple[list[str], list[list[list[str]]], list[int]]:
    """(aligned header per column, aligned lines of each cell per column, column widths); a cell
    is split at line breaks only when ``multiline``."""
    aligns = ["right"] + ["center"] * (len(headers) - 1)
    colored = colored or any(_ANSI.search(text) for text in [*headers, *(c for column in columns for c in column)])
    widths, cells = [], []
    for header, column in zip(headers, columns):
        column = _as_numbers(column, decimals, colored)
        lines = [_LINE_BREAK.split(cell.strip()) if multiline else [cell.strip()] for cell in column]
        widths.append(max([display_width(header) + 2] + [display_width(line) for cell in lines for line in cell]))
        cells.append(lines)
    aligned_headers = [_align(h, w, a) for h, w, a in zip(headers, widths, aligns)]
    aligned_cells = [[[_align(line, w, a) for line in cell] for cell in column]
                     for column, w, a in zip(cells, widths, aligns)]
    return aligned_headers, aligned_cells, widths


def grid_table(headers: Sequence[str], columns: Sequence[Sequence[str]], decimals: int, colored: bool = False) -> str:
    """tabulate's ``fancy_grid`` of ``columns`` (one list of cells each, a cell may hold several
    lines) under ``headers``, numbers with ``decimals``; ``colored``: numbers read as tabulate
    reads them in a table with colour codes (whether the codes are in these cells or were
    stripped after)."""
    aligned_headers, cells, widths = _aligned_columns(headers, columns, decimals, colored, multiline=True)

    def rule(left: str, fill: str, cross: str, right: str) -> str:
        return left + cross.join(fill * (w + 2) for w in widths) + right

    def rows(row_cells: Sequence[list[str]]) -> list[str]:
        height = max(1, *map(len, row_cells))
        padded = [cell + [" " * w] * (height - len(cell)) for cell, w in zip(row_cells, widths)]
        return ["│" + "│".join(f" {cell[i]} " for cell in padded) + "│" for i in range(height)]

    lines = [rule("╒", "═", "╤", "╕"), *rows([[h] for h in aligned_headers]), rule("╞", "═", "╪", "╡")]
    n_rows = len(columns[0]) if columns else 0
    for r in range(n_rows):
        if r:
            lines.append(rule("├", "─", "┼", "┤"))
        lines.extend(rows([column[r] for column in cells]))
    lines.append(rule("╘", "═", "╧", "╛"))
    return "\n".join(lines)


def latex_table(headers: Sequence[str], columns: Sequence[Sequence[str]], decimals: int,
                colored: bool = False) -> str:
    """tabulate's ``latex_booktabs`` of ``columns`` (one line per cell) under ``headers``,
    numbers with ``decimals`` (``colored``: as :func:`grid_table`)."""
    aligned_headers, cells, _ = _aligned_columns(headers, columns, decimals, colored, multiline=False)

    def row(values: Sequence[str]) -> str:
        return "&".join(f" {value} ".translate(_LATEX_ESCAPES) for value in values) + "\\\\"

    spec = "r" + "c" * (len(headers) - 1)
    lines = [f"\\begin{{tabular}}{{{spec}}}", "\\toprule", row(aligned_headers), "\\midrule"]
    n_rows = len(columns[0]) if columns else 0
    for r in range(n_rows):
        lines.append(row([column[r][0] for column in cells]))
    lines.extend(["\\bottomrule", "\\end{tabular}"])
    return "\n".join(lines)
