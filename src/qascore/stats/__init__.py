"""Statistics shared by every method: correlation, resampling, leaderboards (Numba kernels)."""
