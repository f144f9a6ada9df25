"""The layering rules of docs/dev/architecture.md, checked on the source tree."""
import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("import_graph", ROOT / "tools" / "import_graph.py")
import_graph = importlib.util.module_from_spec(_spec)
sys.modules["import_graph"] = import_graph
_spec.loader.exec_module(import_graph)


@pytest.fixture(scope="module")
def graph():
    modules = import_graph.collect_modules()
    return modules, import_graph.import_edges(modules)


def test_layering_rules_hold(graph):
    modules, edges = graph
    assert import_graph.violations(edges, modules) == []


def test_checker_sees_imports_inside_functions_and_flags_each_rule():
    modules = {name: Path(f"/x/{name.replace('.', '/')}.py") for name in
               ("qascore.exam.a", "qascore.lexical.b", "qascore.text.c", "qascore.ava.d", "qascore.ava.e", "qascore.cli.f")}
    edges = {name: set() for name in modules}
    edges["qascore.exam.a"].add("qascore.lexical.b")      # method -> method
    edges["qascore.text.c"].add("qascore.ava.d")          # shared -> method
    edges["qascore.ava.d"].add("qascore.ava.e")           # cycle d <-> e
    edges["qascore.ava.e"].add("qascore.ava.d")
    edges["qascore.cli.f"].add("qascore.exam.a")          # facade -> method: allowed
    problems = import_graph.violations(edges, modules)
    assert any(p.startswith("method imports another method: qascore.exam.a") for p in problems)
    assert any(p.startswith("shared layer imports a method: qascore.text.c") for p in problems)
    assert any(p.startswith("cycle:") and "qascore.ava.d" in p for p in problems)
    assert len(problems) == 3


def test_function_level_import_is_an_edge(tmp_path, monkeypatch):
    pkg = tmp_path / "qascore"
    (pkg / "ava").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "ava" / "__init__.py").write_text("")
    (pkg / "ava" / "one.py").write_text("def f():\n    from .two import g\n    return g\n")
    (pkg / "ava" / "two.py").write_text("from .one import f\n")
    monkeypatch.setattr(import_graph, "PACKAGE", pkg)
    modules = import_graph.collect_modules()
    edges = import_graph.import_edges(modules)
    assert edges["qascore.ava.one"] == {"qascore.ava.two"}
    assert import_graph.find_cycles(edges) == [["qascore.ava.one", "qascore.ava.two"]]
