"""One rule for thread counts across the library."""
from __future__ import annotations

import os

MAX_N_JOBS = 1024


def resolve_n_jobs(n_jobs: int | None) -> int:
    """None or -1 -> all usable cores; a positive int up to MAX_N_JOBS is taken as is; 0, < -1 or
    more than MAX_N_JOBS is an error."""
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
    return max(1, min(resolve_n_jobs(n_jobs), n_tasks // min_tasks_per_thread))
