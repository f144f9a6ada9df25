"""The project's own files agree with what they describe: the pre-commit hooks run CI's lint and
type checks, the kernel cache of setup.py keys on everything that goes into a module, and the
package ships one copy of each model file."""
import hashlib
import importlib.util
import shlex
from collections import defaultdict
from importlib import resources
from pathlib import Path

import pytest

from qascore.io import read_json
from qascore.models import bundled_path

ROOT = Path(__file__).resolve().parents[1]


def _ci_commands() -> list[list[str]]:
    """The commands of .ci/run, one per line, split as the shell would (comments and echo left out)."""
    lines = (ROOT / ".ci" / "run").read_text().splitlines()
    return [shlex.split(line) for line in lines if line.strip() and not line.lstrip().startswith(("#", "echo"))]


def _hooks() -> dict:
    yaml = pytest.importorskip("yaml", reason="PyYAML (test extra) reads .pre-commit-config.yaml")
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text())
    return {hook["id"]: hook for repo in config["repos"] for hook in repo["hooks"]}


@pytest.mark.parametrize("tool", ["ruff", "mypy"])
def test_pre_commit_runs_ci_command(tool):
    ci = [cmd for cmd in _ci_commands() if cmd[0] == tool]
    assert len(ci) == 1, f".ci/run should run {tool} once, found {ci}"
    hook = _hooks()[tool]
    assert shlex.split(hook["entry"]) + hook.get("args", []) == ci[0]
    # the whole command as CI gives it, not the changed files only, with the tool CI installs
    assert hook.get("pass_filenames") is False
    assert hook["language"] == "system"


def test_pre_commit_hooks_are_ci_checks_and_ci_installs_their_tools():
    ci_tools = {cmd[0] for cmd in _ci_commands()}
    assert {shlex.split(h["entry"])[0] for h in _hooks().values()} <= ci_tools
    installs = [arg for cmd in _ci_commands() if cmd[:2] == ["pip", "install"] for arg in cmd]
    assert any(arg.startswith(".[") and "lint" in arg[2:-1].split(",") for arg in installs), installs


# --- setup.py's kernel cache -------------------------------------------------------------------

def _load_setup():
    pytest.importorskip("setuptools", reason="setuptools reads setup.py")
    spec = importlib.util.spec_from_file_location("qascore_setup", ROOT / "setup.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # not __main__: defines the build, calls no setup()
    return module


@pytest.fixture
def setup_module(tmp_path, monkeypatch):
    module = _load_setup()
    (tmp_path / "kernels" / "include").mkdir(parents=True)
    (tmp_path / "kernels" / "a.pyx").write_text("def f(): return 1\n")
    (tmp_path / "kernels" / "include" / "h.h").write_text("#define X 1\n")
    monkeypatch.setattr(module, "_ROOT", tmp_path)
    monkeypatch.setattr(module, "_SHARED_SOURCES", [tmp_path / "kernels" / "include" / "h.h"])
    return module


def _ext(module, numpy_dir="/tmp/pip-build-env-1/numpy/include", flags=("-O3",)):
    from setuptools import Extension

    return Extension("qascore._kernels.a", ["kernels/a.pyx"], include_dirs=["kernels/include", numpy_dir],
                     extra_compile_args=list(flags))


def test_kernel_key_changes_with_what_goes_into_the_module(setup_module, tmp_path):
    key = setup_module.module_key(_ext(setup_module), "toolchain")
    assert setup_module.module_key(_ext(setup_module), "toolchain") == key
    assert setup_module.module_key(_ext(setup_module), "other toolchain") != key
    assert setup_module.module_key(_ext(setup_module, flags=("-O2",)), "toolchain") != key
    (tmp_path / "kernels" / "include" / "h.h").write_text("#define X 2\n")
    changed_header = setup_module.module_key(_ext(setup_module), "toolchain")
    assert changed_header != key
    (tmp_path / "kernels" / "a.pyx").write_text("def f(): return 2\n")
    assert setup_module.module_key(_ext(setup_module), "toolchain") not in (key, changed_header)


def test_kernel_key_ignores_the_isolated_build_paths_and_timestamps(setup_module, tmp_path):
    key = setup_module.module_key(_ext(setup_module), "toolchain")
    # pip's isolated build puts numpy's headers under a fresh temporary path each time
    assert setup_module.module_key(_ext(setup_module, numpy_dir="/tmp/pip-build-env-2/numpy/include"),
                                   "toolchain") == key
    for path in (tmp_path / "kernels").rglob("*.*"):
        path.touch()
    assert setup_module.module_key(_ext(setup_module), "toolchain") == key


def test_every_kernel_include_is_in_the_key():
    module = _load_setup()
    # everything in kernels/ but the modules' own sources and the C that Cython generates from them
    tracked = {p for p in (ROOT / "kernels").rglob("*") if p.is_file() and "__pycache__" not in p.parts
               and p.suffix != ".pyx" and not (p.suffix == ".c" and p.with_suffix(".pyx").exists())}
    assert tracked and tracked <= set(module._SHARED_SOURCES)


# --- bundled model files -----------------------------------------------------------------------

def _bundled_files() -> list[Path]:
    root = Path(str(resources.files("qascore.models")))
    return [p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".py"]


def test_one_copy_of_each_model_file():
    by_content = defaultdict(list)
    for path in _bundled_files():
        by_content[hashlib.sha256(path.read_bytes()).hexdigest()].append(path.name)
    assert [names for names in by_content.values() if len(names) > 1] == []


def test_every_model_names_a_tokenizer_that_is_shipped():
    models = [p for p in _bundled_files() if p.name == "model.json"]
    assert len(models) >= 2
    for meta_path in models:
        bundled = read_json(meta_path).get("bundled_tokenizer")
        tokenizer = bundled_path(*bundled.split("/")) if bundled else meta_path.parent / "tokenizer.json"
        assert tokenizer.is_file(), f"{meta_path}: tokenizer {tokenizer} is not shipped"


def test_the_cluster_extras_leave_pandas_uncapped_and_give_spark_its_pyarrow():
    """Scoring on Ray or Spark moves Arrow batches only: an upper bound on pandas in these extras
    would only downgrade a user's pandas (issue 36, class 9); pyspark 4.3 refuses pyarrow < 18."""
    tomllib = pytest.importorskip("tomllib")
    from packaging.requirements import Requirement

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    for extra in ("ray", "spark"):
        requirements = {Requirement(text).name: Requirement(text) for text in extras[extra]}
        assert all(spec.operator in (">=", "!=") for spec in requirements["pandas"].specifier), (extra, requirements)
    assert Requirement(next(r for r in extras["spark"] if r.startswith("pyarrow"))).specifier.contains("18.0.0")
    assert not Requirement(next(r for r in extras["spark"] if r.startswith("pyarrow"))).specifier.contains("17.0.0")
