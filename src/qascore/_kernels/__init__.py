"""Compiled Cython kernels (built from the top-level kernels/ folder). Private: call the public API."""
