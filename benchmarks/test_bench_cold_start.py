"""Cold start: wall time of a fresh interpreter that imports qascore, or runs ``qascore --help``.

Each round starts a new process (``subprocess.run``) for one of:

* ``python -c pass`` -- the interpreter alone, the floor under every other figure;
* ``python -c "import numpy"`` -- NumPy alone, which every scoring module needs;
* ``python -c "import qascore.lexical.rouge"`` -- ROUGE alone (NumPy and the compiled kernels);
* ``python -c "import qascore.lexical.rouge, qascore.ava"`` -- what a scoring script starts with;
* ``python -m qascore --help`` -- the ``qascore`` command (its entry point runs the same imports).

Two bytecode settings: ``cached`` (``.pyc`` files written on the warm-up round into a temporary
``PYTHONPYCACHEPREFIX`` and read after, as from an installed package) and ``source``
(``PYTHONDONTWRITEBYTECODE=1`` and no cache: qascore's modules are compiled on every start, as in
a checkout run with that variable set; third-party packages keep their installed caches). At the
end the median and minimum of each case are printed, and the time each adds over ``pass``.

Run: PYTHONPATH=src python -m pytest benchmarks/test_bench_cold_start.py
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import qascore

SRC = Path(qascore.__file__).resolve().parents[1]
COMMANDS = {
    "python -c pass": ["-c", "pass"],
    "import numpy": ["-c", "import numpy"],
    "import qascore.lexical.rouge": ["-c", "import qascore.lexical.rouge"],
    "import qascore.lexical.rouge, qascore.ava": ["-c", "import qascore.lexical.rouge, qascore.ava"],
    "qascore --help": ["-m", "qascore", "--help"],
}
ROUNDS = 15


@pytest.fixture(scope="module")
def figures(request):
    """(bytecode, command) -> (median s, min s), printed when the module ends."""
    collected: dict[tuple[str, str], tuple[float, float]] = {}
    yield collected
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    with request.config.pluginmanager.get_plugin("capturemanager").global_and_fixture_disabled():
        reporter.write_line("")
        for (bytecode, command), (median, low) in collected.items():
            floor = collected.get((bytecode, "python -c pass"))
            extra = f", +{1e3 * (median - floor[0]):.0f} ms over pass" if floor and command != "python -c pass" else ""
            reporter.write_line(f"[cold start] {bytecode:6} {command}: median {1e3 * median:.0f} ms, "
                                f"min {1e3 * low:.0f} ms{extra}")


def _environment(bytecode: str, cache_dir: Path) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("PYTHONPYCACHEPREFIX", None)
    if bytecode == "cached":
        env["PYTHONPYCACHEPREFIX"] = str(cache_dir)
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


@pytest.mark.parametrize("bytecode", ["cached", "source"])
@pytest.mark.parametrize("command", list(COMMANDS))
def test_cold_start(benchmark, figures, tmp_path_factory, bytecode, command):
    env = _environment(bytecode, tmp_path_factory.mktemp("pycache"))
    argv = [sys.executable, *COMMANDS[command]]

    def start():
        subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)

    benchmark.group = f"cold start ({bytecode} bytecode)"
    benchmark.pedantic(start, rounds=ROUNDS, warmup_rounds=1)
    if benchmark.stats is not None:  # None under --benchmark-disable
        figures[(bytecode, command)] = (benchmark.stats.stats.median, benchmark.stats.stats.min)
