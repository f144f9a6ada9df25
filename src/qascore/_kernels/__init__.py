"""Compiled Cython kernels (built from the top-level kernels/ folder). Private: call the public API.

The kernels use OpenMP. GNU OpenMP's default lets idle worker threads spin after each parallel
region; between our batch calls the Python side then runs serial work (tokenising, interning)
against a spinning worker, which on 2 cores made n_jobs=2 slower than n_jobs=1 (MS MARCO ROUGE-L:
26.6 ms vs 14.7 ms; with passive waiting 15.1 vs 14.3 ms). Waiting passively costs our large
batch regions nothing, so it is the default here unless the user set OMP_WAIT_POLICY (it must be
set before the OpenMP runtime loads, i.e. before the first kernel import).
"""
import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
