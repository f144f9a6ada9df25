"""n_jobs for Numba kernels: the library's one thread-count rule, applied to Numba's pool."""
from __future__ import annotations

from contextlib import contextmanager

import numba

from .._parallel import inherited_thread_pools, resolve_n_jobs


@contextmanager
def numba_threads(n_jobs):
    """Run the enclosed kernel calls on n_jobs Numba threads (capped at the pool size); on the
    calling thread alone in a child forked from a process with live pools (its kernels then take
    their serial compilations, and Numba's pool is not touched)."""
    if inherited_thread_pools():
        resolve_n_jobs(n_jobs)  # still an error where it is one in the parent
        yield 1
        return
    wanted = min(resolve_n_jobs(n_jobs), numba.config.NUMBA_NUM_THREADS)
    previous = numba.get_num_threads()
    numba.set_num_threads(wanted)
    try:
        yield wanted
    finally:
        numba.set_num_threads(previous)
