"""Run a peer package's own tests against qascore's drop-in: every ``peer.x`` module name resolves to
``qascore.compat.<peer>.x``, and any peer module that the drop-in does not provide fails to import
(so a test can never pass by reaching the real peer)."""
from __future__ import annotations

import importlib
import importlib.abc
import pkgutil
import sys


class _RefusePeer(importlib.abc.MetaPathFinder):
    def __init__(self, peer: str, ours: str):
        self.peer, self.ours = peer, ours

    def find_spec(self, name, path=None, target=None):
        if name == self.peer or name.startswith(self.peer + "."):
            raise ImportError(f"{name} is not provided by {self.ours} (the real {self.peer} is never imported here)")
        return None


def alias_package(peer: str, ours: str, extra: dict | None = None) -> None:
    """Register ``ours`` and each of its submodules under the peer's names, plus ``extra``
    ({peer module name: module}) for test helpers the peer ships beside its tests."""
    for name in [n for n in sys.modules if n == peer or n.startswith(peer + ".")]:
        del sys.modules[name]
    package = importlib.import_module(ours)
    sys.modules[peer] = package
    for info in pkgutil.walk_packages(package.__path__, ours + "."):
        if info.name.endswith(".__main__"):  # a command line: importing it would run it
            continue
        module = importlib.import_module(info.name)
        sys.modules[peer + info.name[len(ours):]] = module
    for name, module in (extra or {}).items():
        sys.modules[name] = module
        # `from peer import helper` looks the helper up under the package's real name
        sys.modules[ours + name[len(peer):]] = module
    sys.meta_path.insert(0, _RefusePeer(peer, ours))
