"""Compiles every Cython source in kernels/ into the private package qascore._kernels.

Compiled kernels are kept in ``build/kernel-cache/`` under a key of everything that goes into them
(the module's source, every shared include and header, Cython's and numpy's versions, the Python
ABI, the compiler and its flags), and a later build of the same tree copies them instead of
compiling again. pip builds a local directory in place, but in a fresh isolated environment each
time: Cython's own ``libc`` and ``numpy`` declarations are then newer files than the generated C,
so Cython's and setuptools' timestamp checks rebuilt the whole core for every ``pip install
".[extra]"`` (about 3.5 minutes on 2 cores). A content key is right where timestamps are not.
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import numpy as np
from distutils import log
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

_ROOT = Path(__file__).parent
_KERNELS = _ROOT / "kernels"
_CACHE = _ROOT / "build" / "kernel-cache"
# No floating-point contraction: a fused multiply-add (the default where the CPU has one, e.g.
# aarch64) would round differently from the Python and numpy arithmetic the kernels reproduce.
_COMPILE = ["-O3", "-fopenmp", "-ffp-contract=off"]
_LINK = ["-fopenmp"]
_CYTHON = dict(
    language_level=3,
    compiler_directives={
        "boundscheck": False,
        "wraparound": False,
        "cdivision": True,
        "initializedcheck": False,
        "nonecheck": False,
    },
)
# The C helpers are headers of static inline functions: a change to one must rebuild every
# extension, which setuptools only knows when told.
_HEADERS = [str(h.relative_to(_ROOT)) for h in sorted((_KERNELS / "include").glob("*.h"))]
# What every module may include besides its own .pyx: the Cython includes and declarations and
# the C helpers. All of them are in every module's key (a change rebuilds every module, as the
# headers' `depends` already do).
_SHARED_SOURCES = sorted(
    [*_KERNELS.glob("*.pxi"), *_KERNELS.glob("*.pxd"), *(_KERNELS / "include").glob("*.[ch]")]
)

extensions = [
    Extension(
        f"qascore._kernels.{source.stem}",
        [str(source.relative_to(_ROOT))],
        include_dirs=["kernels/include", np.get_include()],  # the C helpers (kernels/include/*.h)
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        extra_compile_args=_COMPILE,
        extra_link_args=_LINK,
        depends=_HEADERS,
    )
    for source in sorted(_KERNELS.glob("*.pyx"))
]


def _digest(parts) -> str:
    h = hashlib.sha256()
    for part in parts:
        data = part if isinstance(part, bytes) else json.dumps(part, sort_keys=True).encode()
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()[:24]


def toolchain_key(compiler, debug) -> str:
    """The part of every module's key that the build environment decides: Python's ABI and
    headers, Cython and numpy (their declarations and headers go into the C), the compiler (its
    version, and its commands with the flags from sysconfig and CFLAGS/LDFLAGS) and the options
    given to Cython here."""
    import Cython

    command = list(compiler.compiler_so)
    try:
        version = subprocess.run([command[0], "--version"], capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        sys.exit(f"setup.py: cannot run the C compiler {command[0]!r} --version: {exc}")
    return _digest([
        sys.version, sys.implementation.cache_tag, sysconfig.get_config_var("EXT_SUFFIX"),
        sysconfig.get_platform(), Cython.__version__, np.__version__, command,
        list(compiler.linker_so), version, bool(debug), _CYTHON,
    ])


def module_key(ext, toolchain: str) -> str:
    """The cache key of one extension: the toolchain's key, its own source and settings (include
    directories by relative path: numpy's is a fresh temporary path in each isolated build and is
    already keyed by numpy's version), and every shared source."""
    own = [_ROOT / s for s in ext.sources]
    settings = [ext.name, ext.sources, [d for d in ext.include_dirs if not os.path.isabs(d)], ext.define_macros,
                ext.undef_macros, ext.extra_compile_args, ext.extra_link_args, ext.libraries, ext.library_dirs]
    files = [p.read_bytes() for p in own + _SHARED_SOURCES]
    return _digest([toolchain, settings, [str(p.relative_to(_ROOT)) for p in own + _SHARED_SOURCES], *files])


class CachedBuildExt(build_ext):
    """build_ext that copies a module from the kernel cache when its key matches, and otherwise
    runs Cython (as before: the same options) and the compiler, then stores the result."""

    def finalize_options(self):
        super().finalize_options()
        # one compiler per core unless -j / --parallel says otherwise: the modules are independent,
        # and a fresh install otherwise compiles them one after another on one core
        if not self.parallel or self.parallel is True:
            self.parallel = os.cpu_count() or 1

    def build_extensions(self):
        from Cython.Build import cythonize

        toolchain = toolchain_key(self.compiler, self.debug)
        self._cached = {}
        missing = []
        for i, ext in enumerate(self.extensions):
            path = _CACHE / f"{ext.name}-{module_key(ext, toolchain)}{sysconfig.get_config_var('EXT_SUFFIX')}"
            self._cached[ext.name] = path
            if not path.is_file():
                missing.append(i)
        if missing:
            # force: the generated C may look newer than a changed dependency (see the docstring)
            built = cythonize([self.extensions[i] for i in missing], force=True,
                              nthreads=min(len(missing), int(self.parallel)), **_CYTHON)
            assert len(built) == len(missing), "cythonize returned a different number of modules"
            for i, ext in zip(missing, built):
                # the generated C as sources (and anything a `# distutils:` line set), on the object
                # that setuptools prepared
                vars(self.extensions[i]).update({k: v for k, v in vars(ext).items() if not k.startswith("_")})
        super().build_extensions()

    def build_extension(self, ext):
        target = self.get_ext_fullpath(ext.name)
        cached = self._cached[ext.name]
        if cached.is_file():
            log.info("reusing %s from %s", ext.name, cached.relative_to(_ROOT))
            self.mkpath(os.path.dirname(target))
            shutil.copy2(cached, target)  # always: a newer target may be another key's module
            return
        if os.path.exists(target):  # a stale module would pass setuptools' timestamp check
            os.remove(target)
        super().build_extension(ext)
        cached.parent.mkdir(parents=True, exist_ok=True)
        partial = cached.with_name(f".{cached.name}.{os.getpid()}.part")
        shutil.copy2(target, partial)
        os.replace(partial, cached)
        # one entry per module and Python: the one just built replaces the older ones
        for old in cached.parent.glob(f"{ext.name}-*{sysconfig.get_config_var('EXT_SUFFIX')}"):
            if old != cached:
                old.unlink(missing_ok=True)


if __name__ == "__main__":
    setup(ext_modules=extensions, cmdclass={"build_ext": CachedBuildExt})
