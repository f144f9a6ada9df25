"""The library's one thread policy: how many threads a call may start, for the Cython kernels'
OpenMP teams, ONNX Runtime sessions and Numba's pool alike (:func:`numba_threads`), and what a
forked child may start.

Thread pools do not survive fork. GNU OpenMP (the Cython kernels' threads, and Numba's ``omp``
threading layer): a child forked after the parent ran a parallel region inherits a pool whose
threads do not exist, and its next parallel region waits for them forever (Numba's ``omp``
layer kills such a child instead). ONNX Runtime: the parent's session waits for its threads, and
a new intra-op pool spins forever on the calling thread's inherited state. So a child forked
from a process that had started any of these pools computes on its calling thread:
:func:`pool_threads` gives 1 there (OpenMP teams, ONNX Runtime intra-op pools), and the Numba
kernels take their serial compilations (:func:`inherited_thread_pools`). A process that never
started a pool forks children that keep all their threads.
"""
from __future__ import annotations

import os
import sys
from contextlib import contextmanager

# This process has handed more than one thread to an OpenMP kernel or an ONNX Runtime session
# (set, never cleared: the pool outlives the call).
_started_threads = False
# This process was forked from one with live OpenMP or Numba pools (inherited by its own children).
_forked_from_threads = False


def _numba_pool_launched() -> bool:
    """Numba has started its threading layer in this process (by our kernels or anyone's)."""
    parallel = sys.modules.get("numba.np.ufunc.parallel")
    return bool(getattr(parallel, "_is_initialized", False))


def _after_fork_in_child() -> None:
    global _forked_from_threads
    if _started_threads or _numba_pool_launched():
        _forked_from_threads = True


if hasattr(os, "register_at_fork"):  # not on Windows, which has no fork
    os.register_at_fork(after_in_child=_after_fork_in_child)


def inherited_thread_pools() -> bool:
    """True in a child forked from a process that had started OpenMP or Numba thread pools:
    there the kernels run serially, on the calling thread."""
    return _forked_from_threads


def pool_threads(n_threads: int) -> int:
    """The threads a kernel's OpenMP team or an ONNX Runtime session may start for a wanted
    ``n_threads``: 1 in a forked child (see the module's docstring), else ``n_threads``. Every
    such pool size passes through here."""
    global _started_threads
    if _forked_from_threads:
        return 1
    if n_threads > 1:
        _started_threads = True
    return n_threads

MAX_N_JOBS = 1024


def resolve_n_jobs(n_jobs: int | None) -> int:
    """The threads an ``n_jobs`` option asks for: None or -1 -> all usable cores; a positive int up
    to MAX_N_JOBS is taken as is; 0, < -1 or more than MAX_N_JOBS is an error. Public as
    :func:`qascore.validate.resolve_n_jobs`.

    Example:

        >>> from qascore.validate import resolve_n_jobs
        >>> resolve_n_jobs(4), resolve_n_jobs(None) >= 1
        (4, True)
        >>> resolve_n_jobs(0)
        Traceback (most recent call last):
        ValueError: n_jobs must be a positive int or -1 (all cores), got 0

    :param n_jobs: None or -1 (all cores), or a number of threads.
    :returns: the number of threads, at least 1.
    :raises ValueError: for 0, a negative number other than -1, more than MAX_N_JOBS, or a non-int.
    """
    if n_jobs is None or n_jobs == -1:
        try:
            return max(1, len(os.sched_getaffinity(0)))
        except AttributeError:  # not on Linux
            return max(1, os.cpu_count() or 1)
    if not isinstance(n_jobs, int) or n_jobs < 1:
        raise ValueError(f"n_jobs must be a positive int or -1 (all cores), got {n_jobs!r}")
    if n_jobs > MAX_N_JOBS:  # a typo, not a machine: thousands of OpenMP threads exhaust the process
        raise ValueError(f"n_jobs must be <= {MAX_N_JOBS}, got {n_jobs}")
    return n_jobs


def threads_for(n_tasks: int, n_jobs: int | None, min_tasks_per_thread: int = 256) -> int:
    """Threads worth starting for ``n_tasks`` small tasks under the caller's ``n_jobs`` (None: all
    cores): waking a thread costs more than a few hundred short kernel tasks, and far more on a
    loaded machine, so small batches stay serial. The one place that decides thread counts."""
    if n_jobs == 1 or (n_jobs is None and n_tasks < 2 * min_tasks_per_thread):
        return 1  # the common small call skips the affinity query
    return pool_threads(max(1, min(resolve_n_jobs(n_jobs), n_tasks // min_tasks_per_thread)))


@contextmanager
def numba_threads(n_jobs):
    """Run the enclosed Numba kernel calls on ``n_jobs`` threads (capped at Numba's pool size); on
    the calling thread alone in a child forked from a process with live pools (its kernels then
    take their serial compilations, and Numba's pool is not touched)."""
    if inherited_thread_pools():
        resolve_n_jobs(n_jobs)  # still an error where it is one in the parent
        yield 1
        return
    import numba  # here, not at the top: importing qascore must not load Numba

    wanted = min(resolve_n_jobs(n_jobs), numba.config.NUMBA_NUM_THREADS)
    previous = numba.get_num_threads()
    numba.set_num_threads(wanted)
    try:
        yield wanted
    finally:
        numba.set_num_threads(previous)
