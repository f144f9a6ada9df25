"""Draw qascore's import graph and check its layering rules.

Every ``import`` in ``src/qascore`` counts, those inside functions too. The rules:

* no cycles between modules;
* no method package (``lexical``, ``nuggets``, ``exam``, ``ava``) imports another method;
* no module of the shared layer imports a method; only the facades (``cli``, ``compat``, ``integrations``) may;
* a private name (``_name``, a module's or a package's) is imported only inside the package that
  holds it: ``qascore._kernels`` and ``qascore._parallel`` by all of qascore, ``qascore.stats._kernels``
  by ``qascore.stats``, ``_pair_work`` of ``qascore.lexical.rouge`` by ``qascore.lexical`` alone;
* ``qascore.compat`` is built as a user's code would be, on the public native API: it imports no
  private module or name from outside itself (not ``qascore._kernels`` or ``qascore._parallel``
  either), and from a native module only the names that module lists in ``__all__`` (or the
  console script that pyproject.toml declares).

Usage: ``python tools/import_graph.py [--write docs/dev/import-graph.md]``; exit status 1 when a
rule is broken, with each violation on its own line. ``tests/test_architecture.py`` runs the checks.
"""
from __future__ import annotations

import argparse
import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "qascore"
METHODS = ("lexical", "nuggets", "exam", "ava")
FACADES = ("cli", "compat", "integrations")
PUBLIC_ONLY = "qascore.compat"  # built on the public native API alone


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve(current: str, is_package: bool, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    base = current.split(".") if is_package else current.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def collect_modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def import_edges(modules: dict[str, Path]) -> dict[str, set[str]]:
    """module -> the qascore modules it imports (a name imported from a package counts as the
    submodule when one exists by that name, else as the package)."""
    edges: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        is_package = path.name == "__init__.py"
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _resolve(name, is_package, node)
                targets = [
                    f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names
                ]
            for target in targets:
                while target and target not in modules and "." in target:
                    target = target.rsplit(".", 1)[0]  # a name inside a module, or a compiled kernel
                if target.startswith("qascore") and target in modules and target != name:
                    edges[name].add(target)
    return edges


def imported_paths(modules: dict[str, Path]):
    """(importing module, dotted path imported) for every import of a qascore name: ``from .rouge
    import x`` in qascore.lexical.bleu gives qascore.lexical.rouge.x."""
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        is_package = path.name == "__init__.py"
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _resolve(name, is_package, node)
                targets = [f"{base}.{alias.name}" for alias in node.names]
            else:
                continue
            yield from ((name, t) for t in targets if t == "qascore" or t.startswith("qascore."))


def private_owner(target: str, modules: dict[str, Path]) -> str | None:
    """The package a dotted path's first private part (``_x``, not ``__x__``) belongs to: the path
    before it, or that module's package when the part is a name inside a module. None when the
    path has no private part."""
    parts = target.split(".")
    for i, part in enumerate(parts):
        if part.startswith("_") and not (part.startswith("__") and part.endswith("__")):
            owner = ".".join(parts[:i])
            if owner in modules and modules[owner].name != "__init__.py":
                owner = owner.rsplit(".", 1)[0]
            return owner
    return None


def private_imports(modules: dict[str, Path]) -> list[str]:
    """Imports of a private name from outside the package that holds it, and compat's imports of
    anything the native modules do not publish (:func:`compat_imports`)."""
    found = []
    for source, target in imported_paths(modules):
        owner = private_owner(target, modules)
        if owner is None:
            continue
        if source != owner and not source.startswith(owner + "."):
            found.append(f"private name imported across packages: {source} -> {target}")
        elif _in_package(source, PUBLIC_ONLY) and not _in_package(target, PUBLIC_ONLY):
            found.append(f"compat imports a private module or name: {source} -> {target}")
    return sorted(set(found) | set(compat_imports(modules)))


def _in_package(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def exported_names(path: Path) -> set[str] | None:
    """The names a module's top-level ``__all__`` lists (a literal list or tuple), or None without one."""
    for node in ast.parse(path.read_text(encoding="utf-8"), str(path)).body:
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign):
            targets = [node.target]
        else:
            continue
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets) and node.value is not None:
            return {str(name) for name in ast.literal_eval(node.value)}
    return None


def console_scripts() -> set[str]:
    """``module.function`` of every console script pyproject.toml declares (public by that declaration)."""
    pyproject = PACKAGE.parents[1] / "pyproject.toml"
    if not pyproject.is_file():
        return set()
    # the [project.scripts] table's `name = "module:function"` lines (tomllib is 3.11+; qascore runs on 3.10)
    table = re.search(r"^\[project\.scripts\][ \t]*$(.*?)(?=^\[|\Z)", pyproject.read_text(encoding="utf-8"),
                      re.M | re.S)
    if table is None:
        return set()
    entries = re.finditer(r'^\s*[\w.-]+\s*=\s*"([\w.]+:[\w.]+)"', table.group(1), re.M)
    return {entry.group(1).replace(":", ".") for entry in entries}


def compat_imports(modules: dict[str, Path]) -> list[str]:
    """compat's imports of public names that their native module does not list in ``__all__``
    (private ones are :func:`private_imports`' business)."""
    found = []
    scripts = console_scripts()
    for source, target in imported_paths(modules):
        if not _in_package(source, PUBLIC_ONLY) or _in_package(target, PUBLIC_ONLY):
            continue
        if private_owner(target, modules) is not None:
            continue
        if target in modules or target == "qascore" or target in scripts:
            continue  # a public module itself, or a declared console script
        module, name = target.rsplit(".", 1)
        exported = exported_names(modules[module]) if module in modules else None
        if exported is None or name not in exported:
            where = "has no __all__" if exported is None else "does not list it in __all__"
            found.append(f"compat imports a name its module does not publish ({module} {where}): {source} -> {target}")
    return found


def layer(module: str) -> str:
    parts = module.split(".")
    if len(parts) == 1:
        return "top"
    if parts[1] in METHODS:
        return parts[1]
    if parts[1] in FACADES:
        return "facade"
    return "shared"


def find_cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for succ in sorted(edges[node]):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    sys.setrecursionlimit(10_000)
    for node in sorted(edges):
        if node not in index:
            visit(node)
    return components


def _is_package_init(module: str, modules: dict[str, Path]) -> bool:
    return modules[module].name == "__init__.py"


def violations(edges: dict[str, set[str]], modules: dict[str, Path]) -> list[str]:
    found = []
    for cycle in find_cycles(_without_package_reexports(edges, modules)):
        found.append("cycle: " + " <-> ".join(cycle))
    for source, targets in sorted(edges.items()):
        for target in sorted(targets):
            src_layer, dst_layer = layer(source), layer(target)
            if dst_layer in METHODS and src_layer in METHODS and src_layer != dst_layer:
                found.append(f"method imports another method: {source} -> {target}")
            elif dst_layer in METHODS and src_layer in ("shared", "top"):
                found.append(f"shared layer imports a method: {source} -> {target}")
    return found


def _without_package_reexports(edges: dict[str, set[str]], modules: dict[str, Path]) -> dict[str, set[str]]:
    """A package's ``__init__`` re-exporting its own submodules is not a cycle with them."""
    return {
        source: {t for t in targets if not (_is_package_init(source, modules) and t.startswith(source + "."))}
        for source, targets in edges.items()
    }


def layer_graph(edges: dict[str, set[str]]) -> dict[tuple[str, str], int]:
    """Imports counted between top-level packages (qascore.X), for the picture."""
    counts: dict[tuple[str, str], int] = {}
    for source, targets in edges.items():
        for target in targets:
            a, b = (m.split(".")[1] if "." in m else "qascore" for m in (source, target))
            if a != b:
                counts[(a, b)] = counts.get((a, b), 0) + 1
    return counts


def render_markdown(edges: dict[str, set[str]], problems: list[str]) -> str:
    lines = [
        "# Import graph",
        "",
        "Drawn by `python tools/import_graph.py --write docs/dev/import-graph.md` from every import in",
        '`src/qascore` (imports inside functions included). An arrow is "imports"; the number is how many',
        "module-to-module imports it stands for. `tests/test_architecture.py` fails when a rule is broken.",
        "",
        "```mermaid",
        "graph LR",
    ]
    for (a, b), n in sorted(layer_graph(edges).items()):
        lines.append(f"    {a} -->|{n}| {b}")
    lines += ["```", "", "## Rules", ""]
    lines += [
        "- no cycles between modules;",
        "- no method (`lexical`, `nuggets`, `exam`, `ava`) imports another;",
        "- the shared layer imports no method; only `cli`, `compat` and `integrations` (facades) do;",
        "- a private name (`_x`) is imported only inside the package that holds it;",
        "- `compat` imports no private module or name from outside itself, and from a native module only",
        "  the names its `__all__` lists.",
        "",
    ]
    lines += ["Status: " + ("all rules hold." if not problems else f"{len(problems)} violations:"), ""]
    lines += [f"- {p}" for p in problems]
    lines += ["", "## Modules", "", "| module | imports |", "|---|---|"]
    for source in sorted(edges):
        lines.append(f"| `{source}` | {', '.join(f'`{t}`' for t in sorted(edges[source])) or '-'} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", help="write the Markdown picture here")
    args = parser.parse_args(argv)
    modules = collect_modules()
    edges = import_edges(modules)
    problems = violations(edges, modules) + private_imports(modules)
    if args.write:
        Path(args.write).write_text(render_markdown(edges, problems), encoding="utf-8")
    for problem in problems:
        print(problem)
    print(f"{len(modules)} modules, {sum(map(len, edges.values()))} imports, {len(problems)} violations")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
