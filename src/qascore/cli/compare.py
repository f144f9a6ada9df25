"""``qascore compare``: a systems x metrics table of means with paired significance tests of every
system against a baseline (sacrebleu 2.6's paired bootstrap resampling or paired approximate
randomization), corrected for multiple comparisons (Holm, Bonferroni or none), as text, JSON or
LaTeX.

Inputs, one system per file (``NAME=FILE`` names it; default: the file's name without suffix):

* per-example scores as the other commands write them: JSON lines (``--jsonl --per-example``) or
  a JSON document (``--json --per-example``) of records; the numeric fields are the metrics
  (nested objects flattened: ``rouge1.fmeasure``; true/false count as 1/0), the records a command
  writes as its summary (a ``signature`` or ``aggregate`` field, or an id ``all``) are not
  examples. A file whose records carry a ``system`` or ``run`` field holds one system per value;
* plain score files: one line per example, one number per column (white space, TSV or CSV), an
  optional header line naming the columns;
* with ``-r/--references``: system outputs, one segment a line, scored with sacreBLEU's BLEU,
  chrF or TER (``-m bleu chrf ter``), each resample recomputing the corpus score from the resampled
  segments' statistics, exactly as ``sacrebleu REF -i SYS ... --paired-bs`` does.

Examples are aligned by id (``--id-field``; by default the id fields the records hold: ``id``,
``index``, ``example_id``, ``query_id``, ``qid``, ``topic_id``, ``question_id``), or by position
where there are none; a missing, extra or repeated id, or files of different lengths, is a
one-line error naming the file and line.
"""
from __future__ import annotations

import csv
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import InputFormatError
from ..io import (FORMATS, RecordNumber, display_name, dumps, guess_format, iter_jsonl, iter_lines, open_output,
                  read_json)
from ..signature import make_signature
from . import options

TESTS = {"bs": "paired bootstrap resampling", "ar": "paired approximate randomization"}
DEFAULT_RESAMPLES = {"bs": 1000, "ar": 10000}  # sacrebleu's --paired-bs-n / --paired-ar-n
SACREBLEU_SEED = 12345  # sacrebleu's default SACREBLEU_SEED
ID_FIELDS = ("id", "index", "example_id", "query_id", "qid", "topic_id", "question_id")
SYSTEM_FIELDS = ("system", "run")
SUMMARY_FIELDS = ("signature", "aggregate")
SUMMARY_ID = "all"  # trec_eval's name of the mean over topics
# Where a JSON document written by a command keeps its per-example records.
RECORD_KEYS = ("examples", "per_question", "records", "topics")
CORPUS_METRICS = ("bleu", "chrf", "ter")


# ---------------------------------------------------------------- reading per-example scores


@dataclass
class SystemScores:
    """One system's per-example metric values in reading order, with where each example sits."""

    name: str
    path: str
    ids: list = field(default_factory=list)
    lines: list = field(default_factory=list)
    rows: list = field(default_factory=list)  # one dict metric -> float per example


def _number(value, path, line, name):
    """A JSON value as a metric value: a finite number, or a bool as 1/0; None where it is not a number."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        number = float(value)
        if not math.isfinite(number):  # pragma: no cover - strict JSON has no NaN; a huge int overflows
            raise InputFormatError(path, line, f"metric {name!r} is {value}, not a finite number")
        return number
    return None


def _flatten(record: dict, prefix: str = "") -> Iterator[tuple[str, object]]:
    for key, value in record.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            yield from _flatten(value, name + ".")
        else:
            yield name, value


def _document_records(path) -> Iterator[tuple[int, object]]:
    """The per-example records of a JSON document a command wrote (or a JSON array of records)."""
    document = read_json(path)
    if isinstance(document, dict):
        key = next((k for k in RECORD_KEYS if isinstance(document.get(k), list)), None)
        if key is not None:
            document = document[key]
        elif isinstance(document.get("runs"), list):  # qascore nuggets score --json --per-example
            document = [r for run in document["runs"] if isinstance(run, dict)
                        for r in run.get("per_question") or []]
        else:
            raise InputFormatError(path, None, "a JSON document without per-example records (a list, or a "
                                   f"list under {', '.join(map(repr, RECORD_KEYS))}); write the command's "
                                   "output with --per-example")
    if not isinstance(document, list):
        raise InputFormatError(path, None, f"expected a JSON array of records, got {type(document).__name__}")
    yield from enumerate(document, 1)


def _is_summary(record: dict, id_fields) -> bool:
    return any(k in record for k in SUMMARY_FIELDS) or any(record.get(k) == SUMMARY_ID for k in id_fields)


class RecordReader:
    """The systems of JSON records: ids, system names and metrics found in the first record."""

    def __init__(self, args, path: str, name: str | None) -> None:
        self.args, self.path, self.name = args, path, name
        self.id_fields: tuple | None = tuple(args.id_field.split(",")) if args.id_field else None
        self.system_field: str | None = args.system_field
        self.metrics: list | None = list(args.metrics) if args.metrics else None

    def _settle(self, record: dict, line) -> None:
        """What the first example record decides, where the options leave it open."""
        if self.id_fields is None:
            self.id_fields = tuple(k for k in ID_FIELDS if k in record and k != self.args.group_by)
        if self.system_field is None:
            self.system_field = next((k for k in SYSTEM_FIELDS if k in record), "")
        if self.system_field and self.name is not None:
            raise InputFormatError(self.path, line, f"its records name their systems (field "
                                   f"{self.system_field!r}); NAME= cannot name one")
        if self.metrics is None:
            skip = {*self.id_fields, self.system_field, self.args.group_by}
            self.metrics = [k for k, v in _flatten(record)
                            if k not in skip and _number(v, self.path, line, k) is not None]
            if not self.metrics:
                raise InputFormatError(self.path, line, "the record holds no numeric field to compare")

    def read(self) -> list[SystemScores]:
        fmt = guess_format(self.path) if self.args.format == "auto" else self.args.format
        source = _document_records(self.path) if fmt == "json" else iter_jsonl(self.path)
        systems: dict[str, SystemScores] = {}
        for line, record in source:
            if isinstance(line, int) and fmt == "json":
                line = RecordNumber(line)
            if not isinstance(record, dict):
                raise InputFormatError(self.path, line, f"expected a JSON object, got {type(record).__name__}")
            if _is_summary(record, self.id_fields or ID_FIELDS):
                continue
            self._settle(record, line)
            assert self.metrics is not None and self.id_fields is not None
            name = self.name or default_name(self.path)
            if self.system_field:
                if self.system_field not in record:
                    raise InputFormatError(self.path, line, f"missing field {self.system_field!r} (the system)")
                name = str(record[self.system_field])
            system = systems.setdefault(name, SystemScores(name, self.path))
            flat = dict(_flatten(record))
            row = {}
            for metric in self.metrics:
                if metric not in flat:
                    raise InputFormatError(self.path, line, f"missing metric {metric!r}")
                value = _number(flat[metric], self.path, line, metric)
                if value is None:
                    raise InputFormatError(self.path, line, f"metric {metric!r} is {dumps(flat[metric])[:40]}, "
                                           "not a number")
                row[metric] = value
            system.ids.append(self._key(record, line, len(system.rows) + 1))
            system.lines.append(line)
            system.rows.append(row)
        if not systems:
            raise InputFormatError(self.path, None, "no example records")
        return list(systems.values())

    def _key(self, record: dict, line, position: int):
        if self.args.group_by:
            if self.args.group_by not in record:
                raise InputFormatError(self.path, line, f"missing field {self.args.group_by!r} (--group-by)")
            return ("group", str(record[self.args.group_by]))
        if not self.id_fields:
            return position
        missing = [k for k in self.id_fields if k not in record]
        if missing:
            raise InputFormatError(self.path, line, f"missing id field {missing[0]!r}")
        return tuple(str(record[k]) for k in self.id_fields)


def _cells(text: str, fmt: str) -> list[str]:
    if fmt == "tsv":
        return text.split("\t")
    if fmt == "csv":
        return next(csv.reader([text]))
    return text.split()


def _is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def read_score_table(args, path: str, name: str | None, fmt: str) -> list[SystemScores]:
    """A plain score file: one example a line, one number per column, an optional header line."""
    system = SystemScores(name or default_name(path), path)
    columns: list[str] | None = None
    id_column = None
    for line, text in iter_lines(path):
        cells = [c.strip() for c in _cells(text, fmt)]
        if not text.strip():
            raise InputFormatError(path, line, "blank line; a score file holds one line of numbers per example "
                                   "(write a command's per-example scores with --jsonl)")
        if columns is None:
            header = args.tsv_header if args.tsv_header is not None else not all(map(_is_number, cells))
            if header:
                columns = cells
                wanted = args.id_field.split(",") if args.id_field else ID_FIELDS
                id_column = next((i for i, c in enumerate(columns) if c in wanted), None)
                continue
            columns = ["score"] if len(cells) == 1 else [f"col{i}" for i in range(1, len(cells) + 1)]
        if len(cells) != len(columns):
            raise InputFormatError(path, line, f"{len(cells)} columns, the first line has {len(columns)}")
        row = {}
        for i, (column, cell) in enumerate(zip(columns, cells)):
            if i == id_column:
                continue
            try:
                value = float(cell)
            except ValueError:
                raise InputFormatError(path, line, f"column {column!r}: {cell[:40]!r} is not a number") from None
            if not math.isfinite(value):
                raise InputFormatError(path, line, f"column {column!r}: {cell!r} is not a finite number")
            row[column] = value
        if args.metrics:
            missing = [m for m in args.metrics if m not in row]
            if missing:
                raise InputFormatError(path, line, f"no column {missing[0]!r} (columns: {', '.join(columns)})")
            row = {m: row[m] for m in args.metrics}
        system.ids.append(cells[id_column] if id_column is not None else len(system.rows) + 1)
        system.lines.append(line)
        system.rows.append(row)
    if not system.rows:
        raise InputFormatError(path, None, "no examples (the file is empty)")
    return [system]


def default_name(path: str) -> str:
    """A system's name when NAME= gives none: the file's name without its last suffix (and .gz)."""
    return Path(str(path).removesuffix(".gz")).stem if path != "-" else "stdin"


def split_name(spec: str) -> tuple[str | None, str]:
    """``NAME=FILE`` -> (NAME, FILE); a plain path (or one that exists as written) -> (None, path)."""
    name, sep, path = spec.partition("=")
    if not sep or not name or Path(spec).exists():
        return None, spec
    return name, path


def read_systems(args) -> list[SystemScores]:
    systems: list[SystemScores] = []
    for spec in args.inputs:
        name, path = split_name(spec)
        fmt = guess_format(path) if args.format == "auto" else args.format
        found = RecordReader(args, path, name).read() if fmt in ("jsonl", "json") else \
            read_score_table(args, path, name, fmt)
        for system in found:
            clash = next((s for s in systems if s.name == system.name), None)
            if clash is not None:
                raise InputFormatError(path, None, f"a second system named {system.name!r} (the first is in "
                                       f"{display_name(clash.path)}); name them NAME=FILE")
            systems.append(system)
    return systems


def _where(system: SystemScores, k: int) -> str:
    line = system.lines[k]
    return f"{display_name(system.path)}{line:}" if isinstance(line, RecordNumber) else \
        f"{display_name(system.path)}:{line}"


def align(systems: list[SystemScores], baseline: int) -> tuple[list[str], np.ndarray]:
    """(metric names, values [metrics, examples, systems]) in the baseline's example order. Every
    system must hold the baseline's examples (by id, or by position), no more, each once."""
    base = systems[baseline]
    metrics = list(base.rows[0])
    grouped = isinstance(base.ids[0], tuple) and base.ids[0][:1] == ("group",)
    order = {}
    for system in systems:
        seen: dict = {}
        for k, key in enumerate(system.ids):
            if key in seen and not grouped:
                raise InputFormatError(system.path, system.lines[k], f"example id {_show(key)} again (first at "
                                       f"{_where(system, seen[key])})")
            seen.setdefault(key, k)
        order[system.name] = seen
    base_order = order[base.name]
    values = np.empty((len(metrics), len(base_order), len(systems)))
    for s, system in enumerate(systems):
        seen = order[system.name]
        positional = isinstance(system.ids[0], int) and isinstance(base.ids[0], int)
        if positional and len(system.rows) != len(base.rows):
            shorter, longer = (system, base) if len(system.rows) < len(base.rows) else (base, system)
            n = len(shorter.rows)
            raise InputFormatError(longer.path, longer.lines[n], f"example {n + 1} has no counterpart: "
                                   f"{display_name(shorter.path)} ends after {n} examples (line {shorter.lines[-1]})")
        extra = next((key for key in seen if key not in base_order), None)
        if extra is not None:
            raise InputFormatError(system.path, system.lines[seen[extra]], f"example id {_show(extra)} is not in the "
                                   f"baseline {base.name!r} ({display_name(base.path)})")
        missing = next((key for key in base_order if key not in seen), None)
        if missing is not None:
            raise InputFormatError(system.path, None, f"system {system.name!r} has no example id {_show(missing)}, "
                                   f"which the baseline has at {_where(base, base_order[missing])}")
        absent = [m for m in metrics if m not in system.rows[0]]
        if absent:
            raise InputFormatError(system.path, system.lines[0], f"no metric {absent[0]!r}, which the baseline has")
        if grouped:
            matrix, position = _group_means(system, metrics), {key: i for i, key in enumerate(seen)}
        else:
            matrix, position = np.array([[row[m] for m in metrics] for row in system.rows]).T, seen
        values[:, :, s] = matrix[:, [position[key] for key in base_order]]
    return metrics, values


def _group_means(system: SystemScores, metrics: list[str]) -> np.ndarray:
    """[metrics, groups]: each metric's mean over a group's records, groups in order of appearance."""
    sums: dict = {}
    counts: dict = {}
    for key, row in zip(system.ids, system.rows):
        sums.setdefault(key, [0.0] * len(metrics))
        counts[key] = counts.get(key, 0) + 1
        sums[key] = [a + row[m] for a, m in zip(sums[key], metrics)]
    return np.array([[total / counts[key] for total in sums[key]] for key in sums]).T


def _show(key) -> str:
    if isinstance(key, tuple):
        return "/".join(key[1:]) if key[:1] == ("group",) else "/".join(key)
    return str(key)


# ---------------------------------------------------------------- the tests


@dataclass
class Cell:
    """One system on one metric: its score, and against the baseline its p-value (raw and
    corrected); with the bootstrap, sacrebleu's mean of the resampled scores and 95% half width."""

    score: float
    p_value: float | None = None
    p_corrected: float | None = None
    mean: float | None = None
    ci: float | None = None


@dataclass
class Table:
    systems: list[str]
    metrics: list[str]
    cells: list[list[Cell]]  # [system][metric]
    baseline: int
    test: str
    n_resamples: int
    seed: int
    correction: str
    family: str
    alpha: float
    n: int
    signature: str
    metric_signatures: dict = field(default_factory=dict)

    def significant(self, cell: Cell) -> bool:
        return cell.p_corrected is not None and cell.p_corrected <= self.alpha


def _mean_scores(sums: np.ndarray, n: int) -> np.ndarray:
    return sums / n


def test_means(values: np.ndarray, baseline: int, test: str, n_resamples: int, seed: int) -> list[list[Cell]]:
    """[system][metric] cells of per-example scores ``values`` [metrics, examples, systems]: the mean
    is the score, a resample's score the mean of its resampled examples (a metric whose
    statistics are the per-example scores, in float64 where sacrebleu sums float32)."""
    from ..compat.sacrebleu import significance as sig

    n_metrics, n, n_systems = values.shape
    scores = [[math.fsum(values[m, :, s]) / n for m in range(n_metrics)] for s in range(n_systems)]
    cells = [[Cell(scores[s][m]) for m in range(n_metrics)] for s in range(n_systems)]
    others = [s for s in range(n_systems) if s != baseline]
    rng = np.random.default_rng(seed)
    if test == "bs":
        indices = sig.bootstrap_indices(rng, n, n_resamples)
        wide = np.ascontiguousarray(values.transpose(1, 0, 2).reshape(n, n_metrics * n_systems))
        resampled = _mean_scores(sig.resampled_sums(wide, indices), n).reshape(n_resamples, n_metrics, n_systems)
        for m in range(n_metrics):
            for s in range(n_systems):
                cell = cells[s][m]
                cell.mean, cell.ci = (float(v) for v in sig.estimate_ci(resampled[:, m, s]))
                if s != baseline:
                    cell.p_value = sig.bootstrap_p_value(resampled[:, m, s], resampled[:, m, baseline],
                                                         abs(scores[baseline][m] - scores[s][m]))
    else:
        swaps = sig.randomization_swaps(rng, n, n_resamples)
        for m in range(n_metrics):
            sums_a, sums_b = sig.swapped_sums(swaps, values[m][:, [baseline]], values[m][:, others])
            a, b = _mean_scores(sums_a, n), _mean_scores(sums_b, n)
            for j, s in enumerate(others):
                observed = abs(scores[baseline][m] - scores[s][m])
                cells[s][m].p_value = sig.randomization_p_value(a[:, j], b[:, j], observed)
    for m in range(n_metrics):  # the same scores on every example: no difference, whatever the draws
        for s in others:
            if np.array_equal(values[m, :, s], values[m, :, baseline]):
                cells[s][m].p_value = 1.0
    return cells


def test_corpus(args, names: list[str], hypotheses: list[list[str]], streams: list[list[str]]):
    """[system][metric] cells of sacrebleu metrics recomputed from resampled segment statistics:
    sacrebleu's PairedTest (the baseline first), with the seed given."""
    from ..compat.sacrebleu import significance as sig
    from ..compat.sacrebleu.metrics import BLEU, CHRF, TER

    classes = {"bleu": BLEU, "chrf": CHRF, "ter": TER}
    metrics = {}
    baseline_info = {}
    base_cells = []
    indices = sig.bootstrap_indices(np.random.default_rng(args.seed), len(hypotheses[0]), args.resamples)
    for key in args.metrics:
        metric = classes[key]()
        stats = metric._extract_corpus_statistics(hypotheses[0], streams)
        score = metric._aggregate_and_compute(stats)
        cell = Cell(score.score)
        if args.test == "bs":  # the baseline's interval, from the same draws as the systems'
            cell.mean, cell.ci = (float(v) for v in sig.estimate_ci(sig.resampled_scores(metric, stats, indices)))
        baseline_info[score.name] = (stats, sig.Result(score.score))
        metrics[score.name] = metric
        base_cells.append(cell)
    run = sig.paired_bootstrap if args.test == "bs" else sig.paired_approximate_randomization
    cells = [base_cells]
    for name, hyps in zip(names[1:], hypotheses[1:]):
        _, results = run(baseline_info, name, hyps, streams, metrics, args.resamples, -1, args.seed)
        row = [Cell(r.score, r.p_value, mean=r.mean, ci=r.ci) for r in results.values()]
        if hyps == hypotheses[0]:  # the baseline's output: no difference, whatever the draws
            for cell in row:
                cell.p_value = 1.0
        cells.append(row)
    signatures = {name: m.get_signature().format() for name, m in metrics.items()}
    return list(metrics), cells, signatures


def correct(cells: list[list[Cell]], baseline: int, correction: str, family: str) -> None:
    """Fill ``p_corrected``: each metric's p-values corrected together (family 'metric'), or all
    of the table's (family 'table')."""
    from ..stats import adjust_pvalues

    others = [s for s in range(len(cells)) if s != baseline]
    n_metrics = len(cells[0])
    groups = [[(s, m) for s in others] for m in range(n_metrics)] if family == "metric" else \
        [[(s, m) for m in range(n_metrics) for s in others]]
    for group in groups:
        for (s, m), p in zip(group, adjust_pvalues([cells[s][m].p_value for s, m in group], correction)):
            cells[s][m].p_corrected = float(p)


# ---------------------------------------------------------------- output

def _fmt(value: float, width: int) -> str:
    return f"{value:.{width}f}"


def _cell_text(table: Table, cell: Cell, width: int, is_baseline: bool) -> str:
    text = _fmt(cell.score, width)
    if cell.mean is not None and cell.ci is not None:
        text += f" (μ = {_fmt(cell.mean, width)} ± {_fmt(cell.ci, width)})"
    if not is_baseline and cell.p_corrected is not None:
        text += f" (p = {cell.p_corrected:.4f})" + ("*" if table.significant(cell) else "")
    return text


def _explanation(table: Table, mark: str = "*") -> str:
    correction = {"none": "uncorrected", "holm": "Holm-corrected",
                  "bonferroni": "Bonferroni-corrected"}[table.correction]
    family = "" if table.correction == "none" else \
        (" per metric" if table.family == "metric" else " over the whole table")
    unit = "resamples" if table.test == "bs" else "trials"
    mean = "; μ ± half the 95% interval of the resampled scores" if table.test == "bs" else ""
    return (f"{TESTS[table.test]} against {table.systems[table.baseline]!r}: {table.n_resamples} {unit}, seed "
            f"{table.seed}, {table.n} examples; p-values {correction}{family}, {mark} p <= {table.alpha:g}{mean}")


def format_text(table: Table, width: int) -> str:
    header = ["system", *table.metrics]
    rows = []
    for s, system in enumerate(table.systems):
        label = f"Baseline: {system}" if s == table.baseline else system
        rows.append([label, *(_cell_text(table, c, width, s == table.baseline) for c in table.cells[s])])
    widths = [max(len(r[k]) for r in [header, *rows]) for k in range(len(header))]

    def line(cells: list[str]) -> str:
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()

    out = [line(header), "  ".join("-" * w for w in widths), *map(line, rows), "", _explanation(table),
           f"signature: {table.signature}"]
    out += [f"{name}: {sig}" for name, sig in table.metric_signatures.items()]
    return "\n".join(out) + "\n"


def format_json(table: Table) -> str:
    systems = []
    for s, system in enumerate(table.systems):
        scores = {}
        for metric, cell in zip(table.metrics, table.cells[s]):
            entry: dict = {"score": cell.score}
            if cell.mean is not None:
                entry.update(mean=cell.mean, ci=cell.ci)
            if s != table.baseline:
                entry.update(p_value=cell.p_value, p_corrected=cell.p_corrected, significant=table.significant(cell))
            scores[metric] = entry
        systems.append({"system": system, "baseline": s == table.baseline, "scores": scores})
    document = {"test": table.test, "resamples": table.n_resamples, "seed": table.seed,
                "correction": table.correction, "family": table.family, "alpha": table.alpha, "n": table.n,
                "baseline": table.systems[table.baseline], "metrics": table.metrics, "systems": systems,
                "signature": table.signature}
    if table.metric_signatures:
        document["metric_signatures"] = table.metric_signatures
    return dumps(document) + "\n"


_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(c, c) for c in text)


def format_latex(table: Table, width: int) -> str:
    """A booktabs tabular: the scores, a dagger on those significantly different from the baseline."""
    lines = [r"\begin{tabular}{l" + "r" * len(table.metrics) + "}", r"\toprule",
             " & ".join(["System", *map(latex_escape, table.metrics)]) + r" \\", r"\midrule"]
    for s, system in enumerate(table.systems):
        name = latex_escape(system) + (" (baseline)" if s == table.baseline else "")
        cells = [_fmt(c.score, width) + (r"$^\dagger$" if table.significant(c) else "") for c in table.cells[s]]
        lines.append(" & ".join([name, *cells]) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}",
              "% " + latex_escape(_explanation(table, "DAGGER")).replace("DAGGER", r"$^\dagger$")
              .replace("μ", r"$\mu$").replace("±", r"$\pm$"),
              f"% {table.signature}"]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- the command


def _read_lines(path: str) -> list[str]:
    return [text for _, text in iter_lines(path)]


def _corpus_inputs(args) -> tuple[list[str], list[list[str]], list[list[str]]]:
    names, hypotheses = [], []
    streams = [_read_lines(path) for path in args.references]
    first = args.references[0]
    for stream, path in zip(streams[1:], args.references[1:]):
        _same_length(path, stream, first, streams[0])
    for spec in args.inputs:
        name, path = split_name(spec)
        lines = _read_lines(path)
        _same_length(path, lines, first, streams[0])
        names.append(name or default_name(path))
        hypotheses.append(lines)
    dup = next((n for n in names if names.count(n) > 1), None)
    if dup is not None:
        raise ValueError(f"two systems named {dup!r}; name them NAME=FILE")
    if len(streams[0]) < 2:
        raise InputFormatError(first, None, f"{len(streams[0])} segments; the paired tests need at least 2")
    return names, hypotheses, streams


def _same_length(path: str, lines: list[str], ref_path: str, ref_lines: list[str]) -> None:
    if len(lines) != len(ref_lines):
        n = min(len(lines), len(ref_lines))
        longer = path if len(lines) > n else ref_path
        raise InputFormatError(longer, n + 1, f"line {n + 1} has no counterpart: {display_name(path)} has "
                               f"{len(lines)} lines, {display_name(ref_path)} {len(ref_lines)}")


def _baseline_index(names: list[str], baseline: str | None) -> int:
    if baseline is None:
        return 0
    if baseline not in names:
        raise ValueError(f"--baseline {baseline!r} is not one of the systems: {', '.join(names)}")
    return names.index(baseline)


def run(args) -> int:
    if args.resamples is None:
        args.resamples = DEFAULT_RESAMPLES[args.test]
    if args.references:
        args.metrics = args.metrics or ["bleu"]
        unknown = [m for m in args.metrics if m not in CORPUS_METRICS]
        if unknown:
            raise ValueError(f"with --references, -m takes {', '.join(CORPUS_METRICS)}; got {unknown[0]!r}")
        if args.group_by or args.id_field or args.system_field:
            raise ValueError("--group-by, --id-field and --system-field are for per-example score files, "
                             "not system outputs with --references")
        names, hypotheses, streams = _corpus_inputs(args)
        if len(names) < 2:
            raise ValueError("compare needs at least 2 systems (a baseline and one to test)")
        baseline = _baseline_index(names, args.baseline)
        order = [baseline, *(s for s in range(len(names)) if s != baseline)]
        names, hypotheses = [names[s] for s in order], [hypotheses[s] for s in order]
        metrics, cells, metric_signatures = test_corpus(args, names, hypotheses, streams)
        cells = [cells[order.index(s)] for s in range(len(order))]  # back to the order given
        names = [names[order.index(s)] for s in range(len(order))]
        n = len(streams[0])
    else:
        systems = read_systems(args)
        names = [s.name for s in systems]
        if len(systems) < 2:
            raise ValueError(f"compare needs at least 2 systems (a baseline and one to test); got {len(systems)}")
        baseline = _baseline_index(names, args.baseline)
        metrics, values = align(systems, baseline)
        n = values.shape[1]
        if n < 2:
            raise InputFormatError(systems[baseline].path, None, f"{n} example; the paired tests need at least 2")
        cells = test_means(values, baseline, args.test, args.resamples, args.seed)
        metric_signatures = {}
    correct(cells, baseline, args.correction, args.family)
    signature = make_signature("compare", test=args.test, resamples=args.resamples, seed=args.seed,
                               correction=args.correction, family=args.family, alpha=args.alpha,
                               scores="corpus" if args.references else "mean")
    table = Table(names, metrics, cells, baseline, args.test, args.resamples, args.seed, args.correction,
                  args.family, args.alpha, n, signature, metric_signatures)
    writers: dict[str, Callable[[], str]] = {"text": lambda: format_text(table, args.width),
                                              "json": lambda: format_json(table),
                                              "latex": lambda: format_latex(table, args.width)}
    with open_output(args.output) as out:
        out.write(writers[args.output_format]())
    return 0


def register(p) -> None:
    """Options and run function of ``qascore compare`` (its ``qascore --help`` line: ``cli.COMMANDS``)."""
    p.description = __doc__.split("\n\n")[0]
    p.add_argument("inputs", nargs="+", metavar="[NAME=]FILE",
                   help="one system per file (the first is the baseline unless --baseline): per-example "
                        "scores (JSON lines, JSON, or plain/TSV/CSV columns), or with -r system outputs")
    p.add_argument("-r", "--references", action="append", metavar="FILE",
                   help="reference segments, one a line (repeat for several references): the inputs are then "
                        "system outputs scored with -m bleu/chrf/ter from resampled corpus statistics")
    p.add_argument("-m", "--metrics", nargs="+", metavar="NAME",
                   help="metrics to compare: fields (rouge1.fmeasure) or columns of the score files (default: "
                        "every numeric one), or bleu, chrf, ter with -r (default: bleu)")
    p.add_argument("--baseline", metavar="NAME", help="the system the others are tested against (default: the first)")
    p.add_argument("--test", choices=tuple(TESTS), default="bs",
                   help="bs: paired bootstrap resampling (default); ar: paired approximate randomization "
                        "(sacrebleu's --paired-bs / --paired-ar)")
    p.add_argument("-n", "--resamples", type=options.int_in(1, 10**7), default=None, metavar="N",
                   help="bootstrap resamples (default 1000) or randomization trials (default 10000)")
    p.add_argument("--seed", type=options.int_in(0, 2**63 - 1), default=SACREBLEU_SEED,
                   help=f"random seed (default {SACREBLEU_SEED}, sacrebleu's SACREBLEU_SEED)")
    p.add_argument("--correction", choices=("holm", "bonferroni", "none"), default="holm",
                   help="multiple-comparison correction of the p-values (default holm)")
    p.add_argument("--family", choices=("metric", "table"), default="metric",
                   help="p-values corrected together: each metric's systems (default), or the whole table")
    p.add_argument("--alpha", type=options.float_in(0.0, 1.0), default=0.05,
                   help="significance level: a corrected p <= alpha is marked (default 0.05)")
    p.add_argument("--id-field", metavar="FIELD[,FIELD]",
                   help="field(s) that identify an example (default: those of id, index, example_id, "
                        "query_id, qid, topic_id, question_id that the records hold; none: by position)")
    p.add_argument("--system-field", metavar="FIELD",
                   help="field naming the system of each record (default: system or run, if present)")
    p.add_argument("--group-by", metavar="FIELD",
                   help="average each system's records per value of FIELD, and compare those means (e.g. "
                        "query_id: qascore exam's per-question records as its per-query EXAM scores)")
    options.add_format(p, choices=FORMATS)
    options.add_tsv_header(p)
    p.add_argument("-f", "--output-format", choices=("text", "json", "latex"), default="text",
                   help="text (default), json or latex (a booktabs tabular)")
    p.add_argument("--json", dest="output_format", action="store_const", const="json", help="same as -f json")
    p.add_argument("-w", "--width", type=options.int_in(0, 17), default=4, metavar="N",
                   help="decimals of the scores (default 4)")
    p.add_argument("-o", "--output", metavar="FILE", default=None,
                   help="write the table here (default: stdout); written to a temporary name, then renamed")
    p.set_defaults(func=run)
