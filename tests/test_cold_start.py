"""Cold start: importing qascore, scoring with it and ``qascore --help`` load none of the heavy
dependencies (SciPy, Numba, ONNX Runtime, tokenizers) that only statistics and transformer models
need, and every lazily exported name still resolves to the object its module defines.

Each check runs in a fresh interpreter, since this test process has long imported everything.
Speed itself is measured in benchmarks/test_bench_cold_start.py, not asserted here.
"""
from __future__ import annotations

import ast
import importlib
import importlib.util
import json
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import qascore
from qascore.cli import COMMANDS

HEAVY = ("scipy", "numba", "llvmlite", "onnxruntime", "tokenizers", "torch", "sklearn")
# Modules whose public names are imported on first use (qascore.lazy.lazy_exports).
LAZY_MODULES = ("qascore.ava", "qascore.lexical", "qascore.compat.rouge_score.scoring")
SRC = Path(qascore.__file__).resolve().parents[1]


def run_python(*args: str) -> subprocess.CompletedProcess:
    """``python ARGS`` in a fresh interpreter that imports the qascore this test imported."""
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    proc = subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc


def loaded_after(code: str) -> dict:
    """The top-level packages of HEAVY, whether numpy and scipy.stats, and which qascore modules
    are loaded after ``code``."""
    report = ("import json, sys\n"
              f"print(json.dumps({{'heavy': sorted({{m.split('.')[0] for m in sys.modules}} & {set(HEAVY)!r}),"
              "'numpy': 'numpy' in sys.modules, 'scipy.stats': 'scipy.stats' in sys.modules,"
              "'qascore': sorted(m for m in sys.modules if m.split('.')[0] == 'qascore')}))")
    return json.loads(run_python("-c", code + "\n" + report).stdout.splitlines()[-1])


def test_importing_rouge_and_ava_loads_no_heavy_dependency():
    loaded = loaded_after("import qascore.lexical.rouge, qascore.ava")
    assert loaded["heavy"] == []
    # the package itself waits: no AVA module is imported until one of its names is used
    assert [m for m in loaded["qascore"] if m.startswith("qascore.ava.")] == []
    assert "qascore.lexical.bleu" not in loaded["qascore"]


def test_importing_every_method_loads_no_heavy_dependency():
    loaded = loaded_after("import qascore.ava, qascore.lexical, qascore.nuggets, qascore.exam, qascore.judges, qascore.text, "
                          "qascore.runtime, qascore.compat.rouge_score, qascore.compat.sacrebleu")
    assert loaded["heavy"] == []
    assert "qascore.stats" not in loaded["qascore"]


def test_scoring_loads_no_heavy_dependency():
    """ROUGE, BLEU, the MRC scores, AVA's linear judge and its point-wise report run without SciPy
    or Numba."""
    loaded = loaded_after(
        "from qascore.ava import Ava, evaluate_triples, pointwise\n"
        "from qascore.lexical import BLEU, rouge, score_dureader\n"
        "from qascore.compat.rouge_score import rouge_scorer\n"
        "rouge(['the cat sat'], ['the cat sat down'])\n"
        "BLEU().corpus_score(['the cat sat'], [['the cat sat down']])\n"
        "rouge_scorer.RougeScorer(['rougeL']).score('the cat', 'a cat')\n"
        "p = Ava('linear').score(['who wrote hamlet'], ['Shakespeare'], ['William Shakespeare'])\n"
        "assert p.columns['label'].tolist() == [1]\n"
        "assert pointwise([1, 0, 1], [1, 1, 1]).accuracy == 2 / 3\n")
    assert loaded["heavy"] == []


def test_statistics_load_numba_and_scipy_when_used():
    """The other side: the functions that need them still get them (qascore.stats on first use);
    scipy.stats, slower to import than the rest, waits for a constant input to warn about."""
    loaded = loaded_after("from qascore.ava import agreement\n"
                          "r = agreement({'a': 0.1, 'b': 0.5, 'c': 0.9}, {'a': 0.2, 'b': 0.4, 'c': 0.8})\n"
                          "assert r.kendall_tau == 1.0, r\n")
    assert {"numba", "scipy"} <= set(loaded["heavy"]) and "qascore.stats" in loaded["qascore"]
    assert not loaded["scipy.stats"]


def test_cli_help_lists_every_subcommand_without_importing_them():
    loaded = loaded_after("from qascore.cli import main\n"
                          "try:\n    main(['--help'])\nexcept SystemExit as exit:\n    assert exit.code == 0\n")
    assert loaded["qascore"] == ["qascore", "qascore.cli"]
    assert loaded["heavy"] == [] and not loaded["numpy"]
    proc = run_python("-m", "qascore", "--help")
    for name, (_, help_line) in COMMANDS.items():
        assert name in proc.stdout and help_line.split()[0] in proc.stdout


def test_a_subcommand_imports_only_its_own_module():
    loaded = loaded_after("from qascore.cli import main\n"
                          "try:\n    main(['rouge', '--help'])\nexcept SystemExit as exit:\n    assert exit.code == 0\n")
    cli_modules = [m for m in loaded["qascore"] if m.startswith("qascore.cli.")]
    assert cli_modules == ["qascore.cli.options", "qascore.cli.rouge"]
    assert loaded["heavy"] == []


def test_every_subcommand_help_shows_the_options_of_the_full_parser():
    """``qascore CMD [SUB] --help`` for every subcommand at every level, each parsed by ``main`` as
    on the command line (only CMD's module registered): exit status 0, the same text as the parser
    with every subcommand registered, and no heavy dependency loaded by any of them."""
    report = run_python("-c", """
import argparse, contextlib, io, json, sys
from qascore.cli import build_parser, main

def help_of(argv):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            main([*argv, "--help"])
        except SystemExit as exit:
            assert exit.code == 0, (argv, exit.code)
    return out.getvalue()

def subcommands(parser):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action.choices
    return {}

def paths(parser, prefix=()):
    for name, sub in subcommands(parser).items():
        yield (*prefix, name)
        yield from paths(sub, (*prefix, name))

full = build_parser()
found = {" ".join(path): help_of(path) for path in paths(full)}
heavy = sorted({m.split(".")[0] for m in sys.modules} & set(sys.argv[1:]))
expected = {}
for path in found:
    parser = full
    for name in path.split():
        parser = subcommands(parser)[name]
    expected[path] = parser.format_help()
print(json.dumps({"heavy": heavy, "found": found, "expected": expected}))
""", *HEAVY)
    result = json.loads(report.stdout)
    assert result["heavy"] == []
    assert set(COMMANDS) <= set(result["found"]) and {"ava score", "nuggets rag"} <= set(result["found"])
    for path, text in result["found"].items():
        assert text == result["expected"][path], path
        assert text.startswith(f"usage: qascore {path} "), path


def test_unknown_subcommand_is_a_usage_error_naming_the_choices(capsys):
    from qascore.cli import main

    with pytest.raises(SystemExit) as exit:
        main(["rogue"])
    assert exit.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'rogue'" in err and all(name in err for name in COMMANDS)


def _type_checking_imports(module_name: str) -> dict[str, str]:
    """name -> the module path it is imported from under ``if TYPE_CHECKING:`` in the module's source."""
    spec = importlib.util.find_spec(module_name)
    tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
    found = {}
    for node in tree.body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for stmt in node.body:
                assert isinstance(stmt, ast.ImportFrom), f"{module_name}: only imports belong under TYPE_CHECKING"
                for alias in stmt.names:
                    found[alias.asname or alias.name] = "." * stmt.level + (stmt.module or "")
    return found


@pytest.mark.parametrize("module_name", LAZY_MODULES)
def test_lazy_names_agree_with_the_type_checking_imports(module_name):
    """The names the hook serves are exactly those type checkers see, each the object of its module,
    and none is also a submodule's name (importing that submodule would rebind the attribute)."""
    declared = _type_checking_imports(module_name)
    assert declared
    lazy = json.loads(run_python(
        "-c", f"import json, {module_name} as m\n"
        "print(json.dumps(sorted(set(dir(m)) - set(vars(m)))))").stdout)
    assert lazy == sorted(declared)
    module = importlib.import_module(module_name)
    package = module.__spec__.parent
    for name, source in declared.items():
        defining = importlib.import_module(source, package)
        assert getattr(module, name) is getattr(defining, name), name
        assert importlib.util.find_spec(f"{package}.{name}") is None, f"{name} is also a submodule of {package}"
    assert set(module.__all__) <= set(dir(module))
    with pytest.raises(AttributeError, match="no attribute 'not_a_name'"):
        module.not_a_name  # noqa: B018


PACKAGES_WITH_ALL = ("qascore.ava", "qascore.cli", "qascore.compat.rouge_score", "qascore.compat.sacrebleu",
                     "qascore.compat.sacrebleu.dataset", "qascore.compat.sacrebleu.metrics",
                     "qascore.compat.sacrebleu.tokenizers", "qascore.exam", "qascore.judges", "qascore.lexical", "qascore.nuggets",
                     "qascore.runtime", "qascore.stats", "qascore.text")


def test_the_package_list_names_every_package_with_all():
    found = set()
    for info in pkgutil.walk_packages(qascore.__path__, "qascore."):
        if info.ispkg and hasattr(importlib.import_module(info.name), "__all__"):
            found.add(info.name)
    assert found == set(PACKAGES_WITH_ALL)


@pytest.mark.parametrize("package", PACKAGES_WITH_ALL)
def test_every_public_name_resolves_in_a_fresh_interpreter(package):
    """Each name of ``__all__``, looked up first thing after ``import package`` (the order a lazy
    hook can get wrong), is an object, listed by ``dir()``."""
    run_python("-c", f"import {package} as m\n"
               "missing = [n for n in m.__all__ if getattr(m, n, None) is None or n not in dir(m)]\n"
               "assert not missing, missing\n")


def test_star_import_gives_every_public_name():
    for module_name in LAZY_MODULES:
        namespace: dict = {}
        exec(f"from {module_name} import *", namespace)
        assert set(importlib.import_module(module_name).__all__) <= set(namespace), module_name
