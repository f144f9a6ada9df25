"""``qascore bleu`` (and ``python -m qascore.compat.sacrebleu``): sacrebleu 2.6's command line for
scoring files and standard input, the same output, on the metrics of qascore.compat.sacrebleu.

    qascore bleu REF [REF ...] -i SYS [SYS ...] [-m bleu chrf ter] [options]
    cat SYS | qascore bleu REF

sacrebleu's arguments, semantics and output: several reference files (or one with ``-nr N``
tab-separated references a line), several systems (``-i``, or tab-separated columns on stdin),
BLEU / chrF / TER options, ``--confidence``, ``--paired-bs`` / ``--paired-ar``, ``-f
json|text|latex`` (default json; ``SACREBLEU_FORMAT`` overrides), ``-b``, ``-w``, ``--short``,
``--sentence-level``; colours on a terminal unless ``--no-color`` or ``NO_COLOR``. Test sets
(``-t``, ``--echo``, ``--list``, ``--download``, ``--citation``, ``--origlang``, ``--subset``)
are out of scope and refused; ``-l SRC-TRG`` with reference files picks the target language's
default tokeniser, as in sacrebleu. Errors are one line; the checks sacrebleu makes on its
inputs exit with its statuses (1; 17 for tab-separated fields), usage errors with 2.
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import sys
from collections.abc import Sequence
from typing import Any

from .. import __version__
from ..compat import sacrebleu
from ..compat.sacrebleu.significance import PairedTest, Result
from ..errors import InputFormatError, display_name, one_line
from ..io import _stdin_buffer, standard_output
from .tables import grid_table, latex_table

METRICS = {"bleu": sacrebleu.BLEU, "chrf": sacrebleu.CHRF, "ter": sacrebleu.TER}
OUTPUT_FORMATS = ("json", "text", "latex")
# sacrebleu's options that need its test-set database or downloads: refused, named in the error.
TEST_SET_OPTIONS = {"test_set": "-t/--test-set", "download": "--download", "echo": "--echo", "list": "--list",
                    "citation": "--citation", "origlang": "--origlang", "subset": "--subset"}
# colorama's codes, which sacrebleu's output carries on a terminal
_COLORS = {"red": "\x1b[31m", "green": "\x1b[32m", "yellow": "\x1b[33m", "cyan": "\x1b[36m"}
_RESET = "\x1b[0m"
_CONFIDENCE = re.compile(r"(\(μ = [0-9\.]+ ± [0-9\.]+\))")


class SacrebleuExit(Exception):
    """A check sacrebleu makes, failed: the message and sacrebleu's exit status for it."""

    def __init__(self, message: str, status: int = 1):
        super().__init__(message)
        self.status = status


class Report:
    """Standard output as sacrebleu writes it: UTF-8 whatever the locale; colours when they are
    on (``colors``: no ``--no-color``, no ``NO_COLOR``) and shown only on a terminal (sacrebleu's
    colorama strips them from pipes and files, after its tables were laid out with them)."""

    def __init__(self, colors: bool):
        self.stream = standard_output()
        self.colors = colors
        self.shows_colors = colors and self.stream.isatty()
        self.stream.flush()

    def color(self, text: str, color: str) -> str:
        return f"{_COLORS[color]}{text}{_RESET}" if self.shows_colors else text

    def print(self, text: str = "") -> None:
        self.write(text + "\n")

    def write(self, text: str) -> None:
        buffer = getattr(self.stream, "buffer", None)
        if buffer is None:  # a text-only stream (an embedding application's)
            self.stream.write(text)
        else:
            buffer.write(text.encode("utf-8"))

    def finish(self) -> None:
        """The end of the output: on a terminal, sacrebleu's colorama resets the colours as the
        process exits (an escape code even where no colour was used)."""
        if self.shows_colors:
            self.write(_RESET)
        getattr(self.stream, "buffer", self.stream).flush()


# -- inputs ---------------------------------------------------------------------------------------
def _decoded(data: bytes, encoding: str, path: str) -> str:
    """``data`` decoded; invalid bytes are an error naming the file, line and byte."""
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data[:exc.start].decode(encoding, errors="replace").count("\n") + 1
        raise InputFormatError(path, line, f"not valid {encoding} ({exc.reason} at byte {exc.start} of the file); "
                                           f"give the file's encoding with -e/--encoding") from None
    except LookupError:
        raise ValueError(f"-e/--encoding: unknown encoding {encoding!r}") from None


def read_lines(path: str, encoding: str) -> list[str]:
    """The lines of a text file (gzip when its name ends in ``.gz``) as sacrebleu reads them: split
    at LF only, trailing whitespace removed."""
    with (gzip.open if path.endswith(".gz") else open)(path, "rb") as f:
        data = f.read()
    text = _decoded(data, encoding, path)
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [line.rstrip() for line in lines]


def read_references(paths: Sequence[str], num_refs: int, encoding: str) -> list[list[str]]:
    """Reference streams: one per file, or ``num_refs`` tab-separated fields of each line of one file."""
    streams: list[list[str]] = [[] for _ in range(max(len(paths), num_refs))]
    for j, path in enumerate(paths):
        for lineno, line in enumerate(read_lines(path, encoding), 1):
            if num_refs == 1:
                streams[j].append(line)
                continue
            fields = line.split("\t", num_refs - 1)
            if len(fields) != num_refs:
                raise SacrebleuExit(f"{display_name(path)}:{lineno}: expected {num_refs} tab-separated references "
                                    f"(-nr/--num-refs), found {len(fields)}", 17)
            for k, field in enumerate(fields):
                streams[k].append(field)
    return streams


def read_stdin_systems(encoding: str) -> list[list[str]]:
    """Systems from standard input, one tab-separated column each (the first line sets how many),
    lines split as Python's universal newlines split them, as sacrebleu reads stdin."""
    text = _decoded(_stdin_buffer().read(), encoding, "-")
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines[-1] == "" and len(lines) > 1:
        lines.pop()
    systems = [[field] for field in lines[0].rstrip().split("\t")]
    for lineno, line in enumerate(lines[1:], 2):
        fields = line.rstrip().split("\t")
        if len(fields) != len(systems):
            raise SacrebleuExit(f"<stdin>:{lineno}: {len(fields)} tab-separated systems, but the first line has "
                                f"{len(systems)}", 17)
        for system, field in zip(systems, fields):
            system.append(field.rstrip())
    return systems


def read_systems(args) -> tuple[list[str], list[list[str]]]:
    """(names, hypotheses) of the systems: the ``-i`` files (a repeat of the baseline is dropped in
    paired mode), or stdin's columns."""
    paired = args.paired_bs or args.paired_ar
    if args.input is None:
        systems = read_stdin_systems(args.encoding)
        names = [f"System {i + 1}" for i in range(len(systems))]
        if paired:
            names = ["Baseline"] + names[:-1]
        return names, systems
    if not args.input:
        raise SacrebleuExit("-i/--input: no system file given (leave -i out to read systems from stdin)")
    names, systems = [], []
    for path in args.input:
        if path in names:
            if paired and path == names[0]:
                continue
            raise SacrebleuExit(f"{display_name(path)}: given twice to -i/--input (each system needs its own name)")
        names.append(path)
        systems.append(read_lines(path, args.encoding))
    if paired and names:
        names[0] = f"Baseline: {names[0]}"
    return names, systems


# -- checks ---------------------------------------------------------------------------------------
def check_arguments(args) -> None:
    """The checks of arguments alone, before any input is read."""
    for dest, option in TEST_SET_OPTIONS.items():
        if getattr(args, dest) not in (None, False):
            raise SacrebleuExit(f"{option}: sacrebleu's test sets (download, --echo, --list, --origlang) are out "
                                f"of scope here; give reference files: qascore bleu REF -i SYSTEM", 2)
    if args.langpair is not None and len(args.langpair.split("-")) < 2:
        raise SacrebleuExit(f"-l/--language-pair: expected SRC-TRG (like en-de), got {args.langpair!r}", 2)
    if args.sentence_level and len(args.metrics) > 1:
        raise SacrebleuExit("--sentence-level takes one metric (-m)")
    if args.num_refs != 1 and len(args.refs) > 1:
        raise SacrebleuExit("-nr/--num-refs reads several tab-separated references from one reference file; "
                            "give one file, or drop -nr")
    if not args.refs:
        raise SacrebleuExit("no reference file: give them before -i/--input (qascore bleu REF -i SYSTEM)")


def check_systems(args, names: list[str], systems: list[list[str]], references: list[list[str]]) -> None:
    """sacrebleu's checks of the systems read against the mode and the references."""
    paired = args.paired_bs or args.paired_ar
    if args.sentence_level:
        if len(systems) > 1:
            raise SacrebleuExit("--sentence-level scores one system; give one to -i/--input")
        if args.confidence or paired:
            raise SacrebleuExit("--sentence-level takes no statistical test (--confidence, --paired-bs, --paired-ar)")
    if paired and len(systems) == 1:
        raise SacrebleuExit("--paired-bs and --paired-ar compare several systems: give them to -i/--input")
    if len(systems) > 1 and args.confidence:
        raise SacrebleuExit("--confidence is for one system; compare several with --paired-bs or --paired-ar")
    for name, system in zip(names, systems):
        if not system:
            raise SacrebleuExit(f"{display_name(name)}: no sentence to score (the input is empty)")
        if any(len(stream) != len(system) for stream in references):
            lengths = ", ".join(str(len(stream)) for stream in references)
            raise SacrebleuExit(f"{display_name(name)} has {len(system)} lines but the references have {lengths}")


# -- metrics --------------------------------------------------------------------------------------
def metric_options(args, name: str) -> dict[str, Any]:
    """A metric's constructor arguments from its ``<name>_`` options (sacrebleu's grouping)."""
    prefix = f"{name}_"
    return {key[len(prefix):]: value for key, value in vars(args).items() if key.startswith(prefix)}


def build_metrics(args, references: list[list[str]]) -> dict:
    """Metric objects by upper-case name, in command-line order, references cached."""
    if args.langpair:
        args.bleu_trg_lang = args.langpair.split("-")[1]
    if args.sentence_level:
        args.bleu_effective_order = True
    return {name.upper(): METRICS[name](**metric_options(args, name), references=references)
            for name in args.metrics}


# -- output ---------------------------------------------------------------------------------------
def print_single_results(report: Report, results: list[str], output_format: str) -> None:
    """One system's score lines: JSON objects (an array when several), or text lines aligned at '='."""
    if output_format == "json":
        report.print("[\n" + ",\n".join(results) + "\n]" if len(results) > 1 else results[0])
        return
    if report.shows_colors and "μ" in results[0]:
        results = [_CONFIDENCE.sub(lambda m: report.color(m.group(), "cyan"), line) for line in results]
    if len(results) == 1:
        report.print(results[0])
        return
    aligned = []
    for line in results:
        if "=" in line:
            aligned.append(line)
        else:  # a score alone (-b): printed as it is, before the aligned lines
            report.print(line)
    if aligned:
        width = max(line.index("=") - 1 for line in aligned)
        for line in aligned:
            cut = line.index("=") - 1
            report.print(f"{line[:cut]:>{width}}{line[cut:]}")


def _result_cell(result: Result | str, width: int, break_char: str, report: Report) -> str:
    if isinstance(result, str):
        return result
    text = f"{result.score:.{width}f}"
    if result.mean is not None:
        text += f" ({result.mean:.{width}f} ± {result.ci:.{width}f})"
    if result.p_value is not None:
        p_value = f"(p = {result.p_value:.4f})"
        text += break_char + (report.color(p_value, "red") if result.p_value > 0.05 else p_value + "*")
    return text


def _json_value(value):
    """A result's field as JSON takes it (numpy scalars as Python numbers)."""
    return value.item() if hasattr(value, "item") else value


def print_results_table(report: Report, scores: dict[str, list], signatures: dict[str, str], args) -> None:
    """The systems x metrics table (JSON, a grid or LaTeX), the paired test's explanation, and the signatures."""
    if args.format == "json":
        rows = []
        for i, system in enumerate(scores["System"]):
            row: dict[str, Any] = {"system": system}
            for metric, values in list(scores.items())[1:]:
                value = values[i]
                row[metric] = value if isinstance(value, str) else {k: _json_value(v) for k, v in vars(value).items()}
            rows.append(row)
        report.print(json.dumps(rows, indent=4))
        return
    grid = args.format == "text"
    headers, columns = ["System"], [list(scores["System"])]
    bootstrap = False
    for metric, values in list(scores.items())[1:]:
        columns.append([_result_cell(value, args.width, "\n" if grid else " ", report) for value in values])
        bootstrap = bootstrap or any(not isinstance(v, str) and v.mean is not None for v in values)
        headers.append(metric + " (μ ± 95% CI)" if bootstrap else metric)
    baseline_name = ""
    if columns[0][0].startswith("Baseline:"):
        baseline_name = columns[0][0]
        for column in columns:
            column[0] = report.color(column[0], "yellow")
    headers = [report.color(header, "cyan") for header in headers]
    # tabulate read sacrebleu's cells with their colour codes in, whether or not they are shown
    report.print((grid_table if grid else latex_table)(headers, columns, args.width, colored=report.colors))
    report.print()
    if args.paired_bs or args.paired_ar:
        print_paired_explanation(report, args, baseline_name)
    report.print("-----------------\nMetric signatures\n-----------------")
    for name, signature in signatures.items():
        report.print(f" - {name:<10} {signature}")


def print_paired_explanation(report: Report, args, baseline_name: str) -> None:
    """What the paired test did and how to read its p-values (sacrebleu's text)."""
    if args.paired_bs:
        title = f"Paired bootstrap resampling test with {args.paired_bs_n} resampling trials"
        provided = "   Actual system score / bootstrap estimated true mean / 95% CI are provided for each metric."
    else:
        title = f"Paired approximate randomization test with {args.paired_ar_n} trials"
        provided = "   Actual system score is provided for each metric."
    baseline, name = report.color("baseline", "yellow"), report.color(baseline_name, "yellow")
    null = report.color("Null hypothesis", "green")
    null_lower = null.lower()
    red = report.color("highlighted in red", "red")
    report.print("\n".join([
        "-" * len(title), title, "-" * len(title),
        f" - Each system is pairwise compared to {name}.",
        provided,
        "",
        f" - {null}: the system and the {baseline} translations are essentially",
        f"   generated by the same underlying process. For a given system and the {baseline},",
        "   the p-value is roughly the probability of the absolute score difference (delta)",
        f"   or higher occurring due to chance, under the assumption that the {null_lower} is correct.",
        "",
        f" - Assuming a significance threshold of 0.05, the {null_lower} can be rejected",
        '   for p-values < 0.05 (marked with "*"). This means that the delta is unlikely to be attributed',
        f'   to chance, hence the system is significantly "different" than the {baseline}.',
        f"   Otherwise, the p-values are {red}.",
        "",
        f' - NOTE: Significance does not tell whether a system is "better" than the {baseline} but rather',
        '   emphasizes the "difference" of the systems in terms of the replicability of the delta.',
        "",
    ]))


# -- the modes ------------------------------------------------------------------------------------
def score_sentences(report: Report, args, metric, system: list[str], references: list[list[str]]) -> None:
    """One line per segment: its score (and signature), as ``--sentence-level`` prints it."""
    lines: list[str] = []
    signature, signed_refs = "", -1
    for hypothesis, *refs in zip(system, *references):
        score = metric.sentence_score(hypothesis, refs)
        if metric.num_refs != signed_refs:  # the signature changes only with the number of references
            signature, signed_refs = metric.get_signature().format(args.short), metric.num_refs
        lines.append(score.format(args.width, args.score_only, signature))
        if len(lines) == 4096:
            report.write("\n".join(lines) + "\n")
            lines = []
    if lines:
        report.write("\n".join(lines) + "\n")


def score_one_system(report: Report, args, metrics: dict, system: list[str]) -> None:
    results = []
    for name in sorted(metrics):
        metric = metrics[name]
        score = metric.corpus_score(system, None, n_bootstrap=args.confidence_n if args.confidence else 1)
        signature = metric.get_signature().format(args.short if args.format != "json" else False)
        results.append(score.format(args.width, args.score_only, signature, args.format == "json"))
    print_single_results(report, results, args.format)
    if args.detail:
        report.print("No subset information found. Consider using --origlang argument.")


def score_systems(report: Report, args, metrics: dict, names: list[str], systems: list[list[str]]) -> None:
    if args.paired_bs or args.paired_ar:
        test = PairedTest(list(zip(names, systems)), metrics, references=None,
                          test_type="bs" if args.paired_bs else "ar",
                          n_samples=args.paired_bs_n if args.paired_bs else args.paired_ar_n,
                          n_jobs=args.paired_jobs)
        test_signatures, scores = test()
        signatures = {name: signature.format(args.short) for name, signature in test_signatures.items()}
    else:
        scores, signatures = {"System": names}, {}
        for system in systems:
            for name in sorted(metrics):
                score = metrics[name].corpus_score(system, None)
                signatures[score.name] = metrics[name].get_signature().format(args.short)
                scores.setdefault(score.name, []).append(score.format(args.width, True))
    print_results_table(report, scores, signatures, args)


def run(args) -> int:
    try:
        check_arguments(args)
        env_format = os.environ.get("SACREBLEU_FORMAT", "").lower()
        if env_format in OUTPUT_FORMATS:
            args.format = env_format
        references = read_references(args.refs, args.num_refs, args.encoding)
        names, systems = read_systems(args)
        check_systems(args, names, systems, references)
    except SacrebleuExit as exc:
        print(f"qascore bleu: error: {one_line(str(exc))}", file=sys.stderr)
        return exc.status
    metrics = build_metrics(args, references)
    report = Report(colors=not (args.no_color or os.environ.get("NO_COLOR")))
    if args.sentence_level:
        score_sentences(report, args, next(iter(metrics.values())), systems[0], references)
    else:
        if args.detail and args.format == "json":
            args.format = "text"
        if len(systems) == 1:
            score_one_system(report, args, metrics, systems[0])
        else:
            score_systems(report, args, metrics, names, systems)
    report.finish()
    return 0


def add_arguments(p: argparse.ArgumentParser) -> None:
    """sacrebleu 2.6's options, with its names, short forms and defaults."""
    bleu, chrf = sacrebleu.BLEU, sacrebleu.CHRF
    test_sets = p.add_argument_group("test sets (sacrebleu's downloads: out of scope, refused)")
    test_sets.add_argument("--test-set", "-t", default=None, help="refused: give reference files instead")
    test_sets.add_argument("--download", default=None, help="refused")
    test_sets.add_argument("--echo", nargs="+", default=None, help="refused")
    test_sets.add_argument("--list", action="store_true", help="refused")
    test_sets.add_argument("--citation", "--cite", action="store_true", help="refused")
    test_sets.add_argument("--origlang", "-ol", default=None, help="refused (needs a test set)")
    test_sets.add_argument("--subset", default=None, help="refused (needs a test set)")
    p.add_argument("--language-pair", "-l", dest="langpair", default=None,
                   help="SRC-TRG: the target language picks BLEU's default tokeniser (zh, ja-mecab, ko-mecab)")

    io = p.add_argument_group("inputs")
    io.add_argument("--input", "-i", nargs="*", default=None,
                    help="system output files (default: stdin, one system per tab-separated column)")
    io.add_argument("refs", nargs="*", default=[], help="reference files, given before -i/--input")
    io.add_argument("--num-refs", "-nr", type=int, default=1,
                    help="split each reference line at tabs into this many references (Default: %(default)s)")
    io.add_argument("--encoding", "-e", default="utf-8", help="encoding of the input files (Default: %(default)s)")

    p.add_argument("--metrics", "-m", choices=list(METRICS), nargs="+", default=["bleu"],
                   help="metrics to compute (Default: bleu)")
    p.add_argument("--sentence-level", "-sl", action="store_true", help="score each sentence")

    group = p.add_argument_group("BLEU")
    group.add_argument("--smooth-method", "-s", choices=list(bleu.SMOOTH_DEFAULTS), default="exp",
                       dest="bleu_smooth_method", help="smoothing method (Default: %(default)s)")
    group.add_argument("--smooth-value", "-sv", type=float, default=None, dest="bleu_smooth_value",
                       help=f"smoothing value for floor and add-k (Defaults: floor: {bleu.SMOOTH_DEFAULTS['floor']}, "
                            f"add-k: {bleu.SMOOTH_DEFAULTS['add-k']})")
    group.add_argument("--tokenize", "-tok", choices=bleu.TOKENIZERS, default=None, dest="bleu_tokenize",
                       help="tokeniser (Default: zh for Chinese, 13a otherwise)")
    group.add_argument("--lowercase", "-lc", dest="bleu_lowercase", action="store_true", default=False,
                       help="case-insensitive BLEU")
    group.add_argument("--force", default=False, action="store_true", dest="bleu_force",
                       help="no warning about tokenised-looking input")

    group = p.add_argument_group("chrF")
    group.add_argument("--chrf-char-order", "-cc", type=int, default=chrf.CHAR_ORDER,
                       help="character n-gram order (Default: %(default)s)")
    group.add_argument("--chrf-word-order", "-cw", type=int, default=chrf.WORD_ORDER,
                       help="word n-gram order (Default: %(default)s; 2: chrF++)")
    group.add_argument("--chrf-beta", type=int, default=chrf.BETA, help="recall weight (Default: %(default)s)")
    group.add_argument("--chrf-whitespace", action="store_true", default=False,
                       help="keep whitespace in character n-grams")
    group.add_argument("--chrf-lowercase", action="store_true", default=False, help="case-insensitive chrF")
    group.add_argument("--chrf-eps-smoothing", action="store_true", default=False,
                       help="epsilon smoothing (chrF++.py, NLTK, Moses) instead of effective order")

    group = p.add_argument_group("TER (the defaults replicate TERCOM)")
    group.add_argument("--ter-case-sensitive", action="store_true", help="case-sensitive TER")
    group.add_argument("--ter-asian-support", action="store_true", help="split Asian characters")
    group.add_argument("--ter-no-punct", action="store_true", help="remove punctuation")
    group.add_argument("--ter-normalized", action="store_true", help="normalise and tokenise")

    group = p.add_argument_group("confidence interval of one system (bootstrap)")
    group.add_argument("--confidence", "-ci", action="store_true", help="report a 95%% bootstrap interval")
    group.add_argument("--confidence-n", "-cin", type=int, default=1000,
                       help="bootstrap resamples (Default: %(default)s)")

    group = p.add_argument_group("paired significance tests of several systems against the first")
    choice = group.add_mutually_exclusive_group()
    choice.add_argument("--paired-ar", "-par", action="store_true", help="paired approximate randomization")
    choice.add_argument("--paired-bs", "-pbs", action="store_true", help="paired bootstrap resampling")
    group.add_argument("--paired-ar-n", "-parn", type=int, default=10000,
                       help="approximate randomization trials (Default: %(default)s)")
    group.add_argument("--paired-bs-n", "-pbsn", type=int, default=1000,
                       help="bootstrap resamples (Default: %(default)s)")
    group.add_argument("--paired-jobs", "-j", type=int, default=1,
                       help="systems scored at once, on threads (0: one per system; Default: %(default)s)")

    group = p.add_argument_group("output")
    group.add_argument("--quiet", "-q", default=False, action="store_true", help="accepted (no progress messages)")
    group.add_argument("--short", "-sh", default=False, action="store_true", help="short signatures")
    group.add_argument("--score-only", "-b", default=False, action="store_true", help="print the score alone")
    group.add_argument("--width", "-w", type=int, default=1, help="decimals (Default: %(default)s)")
    group.add_argument("--detail", "-d", default=False, action="store_true",
                       help="subset detail (needs a test set: says so)")
    group.add_argument("--no-color", "-nc", action="store_true", help="no terminal colours")
    group.add_argument("--format", "-f", default="json", choices=OUTPUT_FORMATS,
                       help="json or text for one system; json, text (a grid) or latex for several; the "
                            "SACREBLEU_FORMAT environment variable overrides it (Default: %(default)s)")
    p.add_argument("--version", "-V", action="version",
                   version=f"sacrebleu {sacrebleu.__version__} (qascore {__version__})")


def register(p) -> None:
    """Options and run function of ``qascore bleu`` (its ``qascore --help`` line: ``cli.COMMANDS``)."""
    p.description = __doc__.split("\n\n")[0]
    add_arguments(p)
    p.set_defaults(func=run)
