"""The layering rules of docs/dev/architecture.md, checked on the source tree."""
import ast
import importlib.util
import re
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


def test_no_private_name_is_imported_across_packages():
    assert import_graph.private_imports(import_graph.collect_modules()) == []


def test_private_import_check_flags_only_imports_from_outside_the_owner(tmp_path, monkeypatch):
    pkg = tmp_path / "qascore"
    for folder in ("lexical", "compat", "stats"):
        (pkg / folder).mkdir(parents=True)
        (pkg / folder / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "_kernels.py").write_text("")
    (pkg / "_lazy.py").write_text("")
    (pkg / "lazy.py").write_text("__all__ = ['lazy_exports']\nlazy_exports = 1\n")
    (pkg / "lexical" / "rouge.py").write_text("__all__ = ['work']\n_work = 1\nwork = 2\nhelper = 3\n")
    (pkg / "lexical" / "bleu.py").write_text("from .rouge import _work, helper\nfrom .._kernels import f\n")
    (pkg / "stats" / "_validate.py").write_text("")
    (pkg / "stats" / "bootstrap.py").write_text("from . import _validate\nx = 1\n")
    (pkg / "compat" / "_shapes.py").write_text("")
    (pkg / "compat" / "scorer.py").write_text(
        "from ..lexical.rouge import _work, work, helper\nfrom .._kernels import f\nfrom .. import _lazy\n"
        "from ..lazy import lazy_exports\n"
        "from . import _shapes\nfrom ..stats.bootstrap import x\n"
        "def g():\n    import qascore.stats._validate\n")
    monkeypatch.setattr(import_graph, "PACKAGE", pkg)
    # qascore.lexical.bleu may use _kernels and rouge's unlisted helper; compat may not (nor a name of
    # a module without __all__, nor any private module of qascore), but may use its own private
    # modules and the names a native module publishes (qascore.lazy.lazy_exports)
    assert import_graph.private_imports(import_graph.collect_modules()) == [
        "compat imports a name its module does not publish (qascore.lexical.rouge does not list it in __all__): "
        "qascore.compat.scorer -> qascore.lexical.rouge.helper",
        "compat imports a name its module does not publish (qascore.stats.bootstrap has no __all__): "
        "qascore.compat.scorer -> qascore.stats.bootstrap.x",
        "compat imports a private module or name: qascore.compat.scorer -> qascore._kernels.f",
        "compat imports a private module or name: qascore.compat.scorer -> qascore._lazy",
        "private name imported across packages: qascore.compat.scorer -> qascore.lexical.rouge._work",
        "private name imported across packages: qascore.compat.scorer -> qascore.stats._validate",
    ]


# ---------------------------------------------------------------- one home per concept
PACKAGE = ROOT / "src" / "qascore"


def _source_trees():
    for path in sorted(PACKAGE.rglob("*.py")):
        yield path.relative_to(PACKAGE).as_posix(), ast.parse(path.read_text(encoding="utf-8"), str(path))


def _factors(node):
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        return _factors(node.left) + _factors(node.right)
    return [node]


def _is_number(node, values=None) -> bool:
    return (isinstance(node, ast.Constant) and type(node.value) in (int, float)
            and (values is None or node.value in values))


def _is_weight(node) -> bool:
    """2, or 1 + something: the weight of an F numerator (2 P R, (1 + b2) P R)."""
    if _is_number(node, (2, 2.0)):
        return True
    return (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add)
            and (_is_number(node.left, (1, 1.0)) or _is_number(node.right, (1, 1.0))))


def _names(node) -> set[str]:
    return {ast.unparse(n) for n in ast.walk(node) if isinstance(n, (ast.Name, ast.Attribute, ast.Subscript))}


def f_formulas(tree):
    """Divisions shaped like an F-measure: a weight (2, or 1 + w) times two or more other factors,
    over a sum that holds one of them (directly, or through a name assigned from it in the same
    function): ``2 * p * r / (p + r)``, ``(1 + b2) * p * r / (r + b2 * p)``, ``... / total``."""
    seen: set[int] = set()
    functions = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    for scope in [*reversed(functions), tree]:  # innermost first: its names are the ones in force
        sums = {t.id: n.value for n in ast.walk(scope) if isinstance(n, ast.Assign)
                for t in n.targets if isinstance(t, ast.Name)}
        for node in ast.walk(scope):
            if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div)) or id(node) in seen:
                continue
            seen.add(id(node))
            factors = _factors(node.left)
            weights = [f for f in factors if _is_weight(f)]
            others = [f for f in factors if not _is_weight(f) and not _is_number(f)]
            if not weights or len(others) < 2:
                continue
            below = sums.get(node.right.id, node.right) if isinstance(node.right, ast.Name) else node.right
            if isinstance(below, ast.BinOp) and isinstance(below.op, ast.Add) and _names(below) & set().union(
                    *map(_names, others)):
                yield node


F_HOME = "prf.py"
# F formed outside qascore.prf, each with its reason (none now); an entry fails here once it goes
# through qascore.prf
F_PENDING: dict[str, str] = {}


def test_f_measure_is_formed_only_in_its_home():
    found = {rel: [ast.unparse(n) for n in f_formulas(tree)] for rel, tree in _source_trees()}
    found = {rel: formulas for rel, formulas in found.items() if formulas}
    assert F_HOME in found  # the scan sees the home's own formula
    assert {rel: f for rel, f in found.items() if rel != F_HOME and rel not in F_PENDING} == {}
    assert sorted(set(F_PENDING) - set(found)) == []  # a site routed through qascore.prf leaves the list


# The compiled side: a product of three factors divided (the weight, P and R over a sum, as
# ``(1 + g2) * p * r / den``) in C or Cython code outside qs_prf.h, comments left out.
_C_F_SHAPE = re.compile(r"[\w)\]]+\s*\*\s*[\w\]]+\s*\*\s*[\w\]]+\s*/")
C_F_HOME = "kernels/include/qs_prf.h"


def c_f_formulas(text: str) -> list[str]:
    code = re.sub(r"/\*.*?\*/", "", text, flags=re.S)  # C block comments
    lines = [line.split("#")[0].split("//")[0] for line in code.splitlines()]  # Cython and C line comments
    return [m.group(0) for line in lines for m in _C_F_SHAPE.finditer(line)]


def test_compiled_f_measure_is_formed_only_in_qs_prf():
    sources = sorted([*(ROOT / "kernels").glob("*.pyx"), *(ROOT / "kernels").glob("*.pxi"),
                      *(ROOT / "kernels" / "include").glob("*.[ch]")])
    found = {str(p.relative_to(ROOT)): c_f_formulas(p.read_text()) for p in sources}
    assert found[C_F_HOME]  # the scan sees the home's own formula
    assert {rel: f for rel, f in found.items() if f and rel != C_F_HOME} == {}


@pytest.mark.parametrize("source", ["score += factor1 * prec * rec / denom;", "f = (1 + b2) * p * r / (r + b2 * p)"])
def test_compiled_f_scan_finds_each_shape(source):
    assert c_f_formulas(source)


def test_compiled_f_scan_passes_comments_and_other_divisions():
    assert c_f_formulas("/* F = 2 * p * r / (p + r) */ x = a / b; # 2 * p * r / s\ny = n * m / d") == []


def test_only_the_home_imports_the_prf_kernel():
    importers = sorted(rel for rel, tree in _source_trees() for node in ast.walk(tree)
                       if isinstance(node, ast.ImportFrom) and (node.module or "").endswith("_kernels.prf"))
    assert importers == [F_HOME]


@pytest.mark.parametrize("source", [
    "def f(p, r):\n    return 2 * p * r / (p + r)\n",
    "def f(p, r, b2):\n    return (1 + b2) * p * r / (r + b2 * p)\n",
    "def f(p, r):\n    total = p + r\n    return 2 * p * r / total if total > 0 else 0.0\n",
    "import numpy as np\ng2 = 1.44\nf = np.where(p > 0, ((1 + g2) * p[0] * r[0]) / (r[0] + g2 * p[0]), 0.0)\n",
])
def test_f_formula_scan_finds_each_shape(source):
    assert len(list(f_formulas(ast.parse(source)))) == 1


@pytest.mark.parametrize("source", [
    "x = 2 * a * b / m\n",                           # Kendall's tie term: no sum below
    "x = 200.0 * lcs(a, b) / (len(a) + len(b))\n",   # one factor: an indel ratio
    "x = (a + b) / 2\n",
])
def test_f_formula_scan_passes_other_divisions(source):
    assert list(f_formulas(ast.parse(source))) == []


THREAD_HOME, VALIDATION_HOME = "_parallel.py", "validate.py"
# calls that size a thread pool or count cores: the thread policy's own business
THREAD_CALLS = {"set_num_threads", "sched_getaffinity", "cpu_count", "set_num_interop_threads"}
THREAD_PENDING: dict[str, str] = {}  # a site with a reason to count cores itself; each leaves once it goes through qascore._parallel


def test_thread_policy_has_one_home():
    trees = dict(_source_trees())
    assert [rel for rel in trees if re.search("thread|parallel", Path(rel).stem)] == [THREAD_HOME]
    callers = {rel for rel, tree in trees.items() for node in ast.walk(tree)
               if isinstance(node, ast.Call) and isinstance(node.func, (ast.Attribute, ast.Name))
               and (node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id) in THREAD_CALLS}
    assert callers == {THREAD_HOME, *THREAD_PENDING}


def test_validation_has_one_home():
    trees = dict(_source_trees())
    assert [rel for rel in trees if re.search("valid|check", Path(rel).stem)] == [VALIDATION_HOME]
    checks = {n.name for n in trees[VALIDATION_HOME].body if isinstance(n, ast.FunctionDef)}
    copies = [f"{rel}: {n.name}" for rel, tree in trees.items() if rel != VALIDATION_HOME
              for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in checks]
    assert copies == []  # a check of the same name defined again is a second home


SENTENCE_HOME = "text/sentences.py"


def test_sentences_are_split_in_one_place():
    splitters = sorted(f"{rel}: {node.name}" for rel, tree in _source_trees() for node in ast.walk(tree)
                       if isinstance(node, ast.FunctionDef) and re.search("split.*sentence|sentence.*split|sent_tok",
                                                                          node.name))
    assert splitters == [f"{SENTENCE_HOME}: split_sentences"]
    nltk_users = sorted({rel for rel, tree in _source_trees() for node in ast.walk(tree)
                         if isinstance(node, (ast.Import, ast.ImportFrom))
                         and any(a.name.split(".")[0] == "nltk" for a in node.names)
                         or isinstance(node, ast.ImportFrom) and (node.module or "").startswith("nltk")})
    assert nltk_users == [SENTENCE_HOME]


def test_the_analysers_share_the_text_layers_verbs():
    from qascore.exam.terms import LexicalAnalyzer
    from qascore.nuggets.terms import Analyzer
    from qascore.text import PackedTokens, Vocabulary

    exam, nuggets = LexicalAnalyzer(), Analyzer()
    for analyser in (exam, nuggets):
        assert not hasattr(analyser, "pack") and not hasattr(analyser, "encode")
    texts = ["The cat sat.", "", "cats and dogs"]
    packed = [exam.encode_batch(texts, Vocabulary()), nuggets.encode_batch(texts)]
    assert all(isinstance(p, PackedTokens) and len(p) == len(texts) for p in packed)
    assert list(exam.terms(texts[0])) == ["cat", "sat"] and list(nuggets.terms(texts[0])) == ["the", "cat", "sat"]


TOKENIZER_HOME = "text/tokenizers.py"
TOKENIZER_GETTER = re.compile(r"_?(get|make|build|load)_\w*tokeni[sz]er")


def _tokenizer_classes(trees) -> set[str]:
    return {node.name for tree in trees.values() for node in ast.walk(tree)
            if isinstance(node, ast.ClassDef) and "Tokenizer" in node.name}


def tokenizer_tables(tree, classes: set[str]) -> list[int]:
    """Lines of the name tables in ``tree``: a dict display or ``dict(...)`` call that names two or
    more tokeniser classes, directly or as strings (a lazy table)."""
    lines = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Dict) or isinstance(node, ast.Call) and ast.unparse(node.func) == "dict"):
            continue
        named = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        named |= {n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
        if len(named & classes) >= 2:
            lines.append(node.lineno)
    return lines


def test_tokenisers_have_one_registry():
    trees = dict(_source_trees())
    classes = _tokenizer_classes(trees)
    tables = sorted({rel for rel, tree in trees.items() if tokenizer_tables(tree, classes)})
    assert tables == [TOKENIZER_HOME]  # a second table of tokeniser names is a second registry
    # any other function that builds a tokeniser by name goes through the registry's get_tokenizer
    getters = [(rel, node) for rel, tree in trees.items() for node in ast.walk(tree)
               if isinstance(node, ast.FunctionDef) and TOKENIZER_GETTER.fullmatch(node.name)]
    bypassing = [f"{rel}: {node.name}" for rel, node in getters
                 if not (rel == TOKENIZER_HOME and node.name == "get_tokenizer")
                 and not any(isinstance(n, ast.Call) and ast.unparse(n.func).endswith("get_tokenizer")
                             for n in ast.walk(node))]
    assert bypassing == []


@pytest.mark.parametrize("source, found", [
    ('T = {"a": ATokenizer, "b": BTokenizer}', [1]),
    ('T = dict(a=("m", "ATokenizer"), b=("m", "BTokenizer"))', [1]),
    ('T = {"a": ATokenizer}\nU = {"b": 1, "c": BTokenizer}', []),
])
def test_tokenizer_table_scan_finds_each_shape(source, found):
    assert tokenizer_tables(ast.parse(source), {"ATokenizer", "BTokenizer"}) == found


def test_every_tokeniser_family_is_in_the_registry():
    from qascore.text import TokenizerBase, get_tokenizer
    from qascore.text.sacrebleu_tokenizers import RULE_TOKENIZERS, SACREBLEU_TOKENIZERS
    from qascore.text.tokenizers import tokenizer_names

    names = tokenizer_names()
    assert set(SACREBLEU_TOKENIZERS) | {"tercom", "rouge", "unicode", "whitespace", "words"} <= set(names)
    for name in (*RULE_TOKENIZERS, "tercom", "rouge", "unicode", "whitespace", "words"):
        tokenizer = get_tokenizer(name)
        assert isinstance(tokenizer, TokenizerBase), name  # one protocol: one base
        assert tokenizer.tokenize("Hello, world. It's 3.5") == tokenizer("Hello, world. It's 3.5").split()
        assert isinstance(tokenizer.signature(), str)
