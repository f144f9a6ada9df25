# Validation of packed token rows where a kernel is entered, in C loops: each numpy reduction
# costs microseconds, and a handful of them cost more than a short batch's whole work (a one-pair
# lcs_lengths call spent 70 us in them). Included by lcs.pyx and ngram.pyx.
from libc.stdint cimport int32_t, int64_t


cdef int64_t checked_max_id(const int32_t[::1] ids, const int64_t[::1] offsets, const int64_t[::1] rows,
                            str name) except -2:
    """Offsets start at 0, end at len(ids) and never decrease; ``rows`` index the rows they
    delimit; ids are non-negative. Returns the largest id, -1 when there are none."""
    cdef Py_ssize_t n_rows = offsets.shape[0] - 1, k
    cdef int32_t lowest = 0, highest = -1
    if n_rows < 0 or offsets[0] != 0 or offsets[n_rows] != ids.shape[0]:
        raise ValueError(f"{name}: offsets must start at 0 and end at len(ids)")
    for k in range(n_rows):
        if offsets[k + 1] < offsets[k]:
            raise ValueError(f"{name}: offsets must be non-decreasing")
    for k in range(ids.shape[0]):
        lowest = min(lowest, ids[k])
        highest = max(highest, ids[k])
    if lowest < 0:
        raise ValueError(f"{name}: token ids must be non-negative")
    check_row_indices(rows, n_rows, name)
    return highest


cdef int check_row_indices(const int64_t[::1] rows, Py_ssize_t n_rows, str name) except -1:
    cdef Py_ssize_t k
    for k in range(rows.shape[0]):
        if not 0 <= rows[k] < n_rows:
            raise ValueError(f"{name}: row index out of range [0, {n_rows})")
    return 0


cdef Py_ssize_t longest_row(const int64_t[::1] offsets, const int64_t[::1] rows) noexcept:
    """The most tokens in one of the rows ``rows`` (checked by checked_max_id), 0 when none."""
    cdef Py_ssize_t k, longest = 0
    for k in range(rows.shape[0]):
        longest = max(longest, offsets[rows[k] + 1] - offsets[rows[k]])
    return longest


cdef bint any_negative(const int64_t[::1] values) noexcept:
    cdef Py_ssize_t k
    for k in range(values.shape[0]):
        if values[k] < 0:
            return True
    return False
