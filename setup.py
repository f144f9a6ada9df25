"""Compiles every Cython source in kernels/ into the private package qascore._kernels."""
from pathlib import Path

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup

_ROOT = Path(__file__).parent
# No floating-point contraction: a fused multiply-add (the default where the CPU has one, e.g.
# aarch64) would round differently from the Python and numpy arithmetic the kernels reproduce.
_COMPILE = ["-O3", "-fopenmp", "-ffp-contract=off"]
_LINK = ["-fopenmp"]

extensions = [
    Extension(
        f"qascore._kernels.{source.stem}",
        [str(source.relative_to(_ROOT))],
        include_dirs=["kernels/include", np.get_include()],  # the C helpers (kernels/include/*.h)
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        extra_compile_args=_COMPILE,
        extra_link_args=_LINK,
    )
    for source in sorted((_ROOT / "kernels").glob("*.pyx"))
]
# The C helpers are headers of static inline functions: a change to one must rebuild every
# extension, which setuptools only knows when told.
_HEADERS = [str(h.relative_to(_ROOT)) for h in sorted((_ROOT / "kernels" / "include").glob("*.h"))]
for _extension in extensions:
    _extension.depends = _HEADERS

setup(
    ext_modules=cythonize(
        extensions,
        language_level=3,
        compiler_directives={
            "boundscheck": False,
            "wraparound": False,
            "cdivision": True,
            "initializedcheck": False,
            "nonecheck": False,
        },
    )
)
