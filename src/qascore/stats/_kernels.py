"""Numba kernels of qascore.stats: tie counts, ranks, correlations and resampling loops.

Kernels trust their arguments (float64, C-contiguous, no NaN unless a flag says so); the public
modules validate input once. Sums use numpy's pairwise summation so a mean here is bit-identical
to ``numpy.mean`` of the same values, which keeps results equal to scipy's to the last ulp
wherever scipy sums with numpy.
"""
from __future__ import annotations

import functools
import types
from typing import Any

import numpy as np
from numba import njit, prange

from .._parallel import inherited_thread_pools

_JIT: dict[str, Any] = dict(cache=True, nogil=True)


def _parallel_njit(fn):
    """``njit(parallel=True)``, and a serial compilation of the same function (``prange`` runs as
    ``range``) that a child forked from a process with live thread pools calls instead: Numba's
    ``omp`` layer kills such a child, its other layers would share a broken GNU OpenMP pool (see
    :mod:`qascore._parallel`). The serial copy has its own name, hence its own on-disk cache entry."""
    parallel = njit(parallel=True, **_JIT)(fn)
    copy = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
    copy.__qualname__ = f"{fn.__qualname__}_serial"
    serial = njit(**_JIT)(copy)

    @functools.wraps(fn)
    def run(*args):
        return (serial if inherited_thread_pools() else parallel)(*args)

    run.parallel, run.serial = parallel, serial
    return run

# Statistic codes shared by the batched and resampling kernels.
MEAN = 0
KENDALL_A = 1
KENDALL_B = 2
KENDALL_C = 3
GAMMA = 4
SPEARMAN = 5
PEARSON = 6
RMSE = 7
R2 = 8

# Fields of the Kendall count vector (int64), in this order.
K_N, K_DIS, K_CON, K_TOT, K_XTIE, K_YTIE, K_NTIE, K_X0, K_X1, K_Y0, K_Y1, K_NXD, K_NYD = range(13)
K_FIELDS = 13

_SMALL_N = 24  # below this the O(n^2) pair loop beats sorting


# ---------------------------------------------------------------- sums (numpy's pairwise order)

@njit(**_JIT)
def _at(a, idx, i):
    if idx is None:
        return a[i]
    return a[idx[i]]


@njit(**_JIT)
def _block_sum(a, idx, start, n):
    """One leaf of numpy's pairwise sum: n <= 128 values, 8 accumulators."""
    if n < 8:
        res = 0.0
        for i in range(start, start + n):
            res += _at(a, idx, i)
        return res
    r0 = _at(a, idx, start)
    r1 = _at(a, idx, start + 1)
    r2 = _at(a, idx, start + 2)
    r3 = _at(a, idx, start + 3)
    r4 = _at(a, idx, start + 4)
    r5 = _at(a, idx, start + 5)
    r6 = _at(a, idx, start + 6)
    r7 = _at(a, idx, start + 7)
    i = 8
    stop = n - (n % 8)
    while i < stop:
        j = start + i
        r0 += _at(a, idx, j)
        r1 += _at(a, idx, j + 1)
        r2 += _at(a, idx, j + 2)
        r3 += _at(a, idx, j + 3)
        r4 += _at(a, idx, j + 4)
        r5 += _at(a, idx, j + 5)
        r6 += _at(a, idx, j + 6)
        r7 += _at(a, idx, j + 7)
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += _at(a, idx, start + i)
        i += 1
    return res


@njit(**_JIT)
def _split(n):
    n2 = n // 2
    return n2 - n2 % 8


# numpy's recursion unrolled three levels deep: _pw_k sums up to _PW_LIMIT[k] values without
# any allocation (children of a node of n values hold at most n // 2 + 7).
@njit(**_JIT)
def _pw1(a, idx, start, n):
    if n <= 128:
        return _block_sum(a, idx, start, n)
    n2 = _split(n)
    return _block_sum(a, idx, start, n2) + _block_sum(a, idx, start + n2, n - n2)


@njit(**_JIT)
def _pw2(a, idx, start, n):
    if n <= 128:
        return _block_sum(a, idx, start, n)
    n2 = _split(n)
    return _pw1(a, idx, start, n2) + _pw1(a, idx, start + n2, n - n2)


@njit(**_JIT)
def _pw3(a, idx, start, n):
    if n <= 128:
        return _block_sum(a, idx, start, n)
    n2 = _split(n)
    return _pw2(a, idx, start, n2) + _pw2(a, idx, start + n2, n - n2)


_PW3_LIMIT = 926  # 128 -> 242 -> 470 -> 926


@njit(**_JIT)
def _pairwise(a, idx, start, n):
    """numpy's pairwise summation; above _PW3_LIMIT the recursion runs on an explicit stack.

    (Numba's on-disk cache crashes on recursive functions, so the tree is walked iteratively:
    internal nodes split at n2 = n // 2 rounded down to a multiple of 8, as numpy does.)
    """
    if n <= _PW3_LIMIT:
        return _pw3(a, idx, start, n)
    node_start = np.empty(64, np.int64)
    node_n = np.empty(64, np.int64)
    node_open = np.zeros(64, np.bool_)
    values = np.empty(64)
    vtop = 0
    node_start[0] = start
    node_n[0] = n
    top = 1
    while top > 0:
        t = top - 1
        s = node_start[t]
        m = node_n[t]
        if m <= _PW3_LIMIT:
            values[vtop] = _pw3(a, idx, s, m)
            vtop += 1
            top -= 1
        elif node_open[t]:
            values[vtop - 2] = values[vtop - 2] + values[vtop - 1]
            vtop -= 1
            node_open[t] = False
            top -= 1
        else:
            node_open[t] = True
            n2 = _split(m)
            node_start[top] = s + n2  # right child, summed second
            node_n[top] = m - n2
            node_start[top + 1] = s  # left child on top, summed first
            node_n[top + 1] = n2
            top += 2
    return values[0]


@njit(**_JIT)
def pairwise_sum(a, start, n):
    """numpy's pairwise summation of a[start:start+n] (same blocking, so the same rounding)."""
    return _pairwise(a, None, np.int64(start), np.int64(n))


@njit(**_JIT)
def gathered_pairwise_sum(a, idx, start, n):
    """pairwise_sum of a[idx[start:start+n]] without materialising the gather."""
    return _pairwise(a, idx, np.int64(start), np.int64(n))


@njit(**_JIT)
def mean(a):
    return pairwise_sum(a, 0, a.shape[0]) / a.shape[0]


# ---------------------------------------------------------------- random indices

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_LOW32 = np.uint64(0xFFFFFFFF)
_HIGH32 = np.uint64(0xFFFFFFFF00000000)


@njit(**_JIT)
def _mix64(z):
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@njit(**_JIT)
def _stream_start(seed, replicate):
    return _mix64(np.uint64(seed) * _GOLDEN + np.uint64(replicate) + np.uint64(1))


# The index stream of a replicate: _LANES xoshiro256++ generators (Blackman & Vigna 2021; the
# layout Julia uses for bulk draws), seeded from splitmix64 keyed by (seed, replicate), stepped
# together so the compiler keeps the lanes in SIMD registers. No 64-bit multiplies: AVX2 has none.
_LANES = 16
_STEPS = 4  # draws per lane in a block
_BLOCK = _LANES * _STEPS  # 64 draws = 128 candidates, in stream order k = step * _LANES + lane
# scratch (uint64 words): lane states (4 words of _LANES), then per draw k of the block its two
# candidates' indices packed as idx[k] = index(high half) | index(low half) << 32 (a pair per
# load in the gather) and the low 32 bits of their Lemire products packed the same way in
# lows[k] (for the rejection test), then the accepted indices of a block, one a word.
_IDX0 = 4 * _LANES
_LOWS0 = _IDX0 + _BLOCK
_ACC0 = _LOWS0 + _BLOCK
_SCRATCH = _ACC0 + 2 * _BLOCK


@njit(**_JIT)
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@njit(**_JIT)
def _stream_scratch():
    """One allocation per replicate (or per chunk of replicates) for the stream's working arrays."""
    return np.empty(_SCRATCH, np.uint64)


@njit(**_JIT)
def _seed_lanes(seed, replicate, scratch):
    """Word w of lane j is splitmix64 output w * _LANES + j + 1 of the (seed, replicate) stream.

    splitmix64 is a bijection of its counter, so no lane starts from the all-zero state.
    """
    base = _stream_start(seed, replicate)
    for w in range(4 * _LANES):
        scratch[w] = _mix64(base + np.uint64(w + 1) * _GOLDEN)



@njit(**_JIT)
def _next_block(scratch, bound, threshold):
    """Step every lane _STEPS times; draw k's two candidates (high 32 bits first, then low) go to
    scratch's idx[k] and lows[k] through Lemire's products. True when one of them is rejected."""
    thr = np.int64(threshold)
    bad = np.int64(0)
    for j in range(_LANES):  # vectorised over the lanes
        x0 = scratch[j]
        x1 = scratch[_LANES + j]
        x2 = scratch[2 * _LANES + j]
        x3 = scratch[3 * _LANES + j]
        for step in range(_STEPS):
            r = _rotl(x0 + x3, 23) + x0
            t = x1 << np.uint64(17)
            x2 ^= x0
            x3 ^= x1
            x1 ^= x2
            x0 ^= x3
            x2 ^= t
            x3 = _rotl(x3, 45)
            mh = (r >> np.uint64(32)) * bound
            ml = (r & _LOW32) * bound
            scratch[_IDX0 + step * _LANES + j] = (mh >> np.uint64(32)) | (ml & _HIGH32)
            scratch[_LOWS0 + step * _LANES + j] = (mh & _LOW32) | (ml << np.uint64(32))
            # low halves fit in int64, so a signed compare (which AVX2 has) is exact
            bad |= (np.int64(mh & _LOW32) < thr) | (np.int64(ml & _LOW32) < thr)
        scratch[j] = x0
        scratch[_LANES + j] = x1
        scratch[2 * _LANES + j] = x2
        scratch[3 * _LANES + j] = x3
    return bad != 0


@njit(**_JIT)
def _accepted_in_order(scratch, threshold, wanted, rejected):
    """The block's accepted candidates in stream order (Lemire's rule), at most wanted of them,
    one a word from scratch[_ACC0]; returns how many. rejected: _next_block's flag (when False
    every candidate is accepted, so no test is needed)."""
    if not rejected:
        m = min(2 * _BLOCK, wanted)
        for c in range(m):
            scratch[_ACC0 + c] = (scratch[_IDX0 + c // 2] >> np.uint64(32 * (c % 2))) & _LOW32
        return m
    m = 0
    for c in range(2 * _BLOCK):
        shift = np.uint64(32 * (c % 2))
        if m < wanted and (scratch[_LOWS0 + c // 2] >> shift) & _LOW32 >= threshold:
            scratch[_ACC0 + m] = (scratch[_IDX0 + c // 2] >> shift) & _LOW32
            m += 1
    return m


@njit(**_JIT)
def _lemire_bound(n):
    """(bound, threshold) for n < 2**32; masking tells the compiler the products are 32 x 32 bits."""
    bound = np.uint64(n) & _LOW32
    return bound, ((np.uint64(1) << np.uint64(32)) - bound) % bound  # Lemire 2019: unbiased


@njit(**_JIT)
def draw_indices(seed, replicate, n, out, scratch):
    """Fill out[:n] with uniform integers in [0, n): replicate's stream (see _next_block), each
    64-bit draw giving two 32-bit candidates (high half first) mapped by Lemire's multiply-shift
    with rejection. Keyed by (seed, replicate): independent of thread count and replicate order."""
    bound, threshold = _lemire_bound(n)
    _seed_lanes(seed, replicate, scratch)
    i = 0
    while i < n:
        rejected = _next_block(scratch, bound, threshold)
        m = _accepted_in_order(scratch, threshold, n - i, rejected)
        for k in range(m):
            out[i + k] = np.int64(scratch[_ACC0 + k])
        i += m


@njit(**_JIT)
def resampled_sum(a, seed, replicate, scratch):
    """Sum of a over the resample draw_indices(seed, replicate, n) gives, drawn on the fly.

    When no candidate of a block is rejected (each is with probability below n / 2**32) and the
    block is not the last, its 128 indices are gathered straight into four running sums; no index
    array is stored. So the sum order is not numpy's pairwise order.
    """
    n = a.shape[0]
    bound, threshold = _lemire_bound(n)
    _seed_lanes(seed, replicate, scratch)
    s0 = 0.0
    s1 = 0.0
    s2 = 0.0
    s3 = 0.0
    i = 0
    while i < n:
        rejected = _next_block(scratch, bound, threshold)
        if not rejected and n - i >= 2 * _BLOCK:
            for k in range(0, _BLOCK, 2):
                p = scratch[_IDX0 + k]
                q = scratch[_IDX0 + k + 1]
                s0 += a[p & _LOW32]
                s1 += a[p >> np.uint64(32)]
                s2 += a[q & _LOW32]
                s3 += a[q >> np.uint64(32)]
            i += 2 * _BLOCK
        else:  # rare, and the last block: in stream order
            m = _accepted_in_order(scratch, threshold, n - i, rejected)
            for k in range(m):
                s0 += a[scratch[_ACC0 + k]]
            i += m
    return (s0 + s1) + (s2 + s3)


# ---------------------------------------------------------------- ranks and Kendall counts
# The rank statistics work from sort orders (*_from_orders): one pair from Python takes numpy's
# sorts (SIMD, and nothing for Numba to compile), the kernels over rows and replicates sort in
# Numba (kendall_counts, spearman). Any order that sorts a sample gives the same ranks and counts.

@njit(**_JIT)
def average_ranks_from_order(a, order, out):
    """scipy.stats.rankdata(a, 'average') into out (1-based, ties get the mean of their ranks);
    order sorts a."""
    n = a.shape[0]
    i = 0
    while i < n:
        j = i + 1
        while j < n and a[order[j]] == a[order[i]]:
            j += 1
        r = 0.5 * (i + 1 + j)  # mean of the 1-based ranks i+1 .. j
        for k in range(i, j):
            out[order[k]] = r
        i = j


@njit(**_JIT)
def _run_stats(sorted_values):
    """Tie statistics of a sorted vector: (tied pairs, sum c(c-1)(c-2), sum c(c-1)(2c+5), distinct)."""
    n = sorted_values.shape[0]
    ties = 0
    s0 = 0
    s1 = 0
    distinct = 0
    i = 0
    while i < n:
        j = i + 1
        while j < n and sorted_values[j] == sorted_values[i]:
            j += 1
        c = j - i
        distinct += 1
        if c > 1:
            ties += c * (c - 1) // 2
            s0 += c * (c - 1) * (c - 2)
            s1 += c * (c - 1) * (2 * c + 5)
        i = j
    return ties, s0, s1, distinct


@njit(**_JIT)
def _group_stats_small(v):
    """_run_stats for a short unsorted vector, O(n^2) without allocating."""
    n = v.shape[0]
    ties = 0
    s0 = 0
    s1 = 0
    distinct = 0
    for i in range(n):
        first = True
        for j in range(i):
            if v[j] == v[i]:
                first = False
                break
        if not first:
            continue
        c = 1
        for j in range(i + 1, n):
            if v[j] == v[i]:
                c += 1
        distinct += 1
        if c > 1:
            ties += c * (c - 1) // 2
            s0 += c * (c - 1) * (c - 2)
            s1 += c * (c - 1) * (2 * c + 5)
    return ties, s0, s1, distinct


@njit(**_JIT)
def _store_counts(counts, n, dis, ntie, x_stats, y_stats):
    """The count vector (layout K_*) from the discordant and jointly tied pairs and each sample's
    _run_stats."""
    tot = n * (n - 1) // 2
    xtie, x0, x1, nxd = x_stats
    ytie, y0, y1, nyd = y_stats
    counts[K_N] = n
    counts[K_DIS] = dis
    counts[K_CON] = tot - xtie - ytie + ntie - dis
    counts[K_TOT] = tot
    counts[K_XTIE] = xtie
    counts[K_YTIE] = ytie
    counts[K_NTIE] = ntie
    counts[K_X0] = x0
    counts[K_X1] = x1
    counts[K_Y0] = y0
    counts[K_Y1] = y1
    counts[K_NXD] = nxd
    counts[K_NYD] = nyd


@njit(**_JIT)
def _dense_ranks_from_order(order, sorted_values, ranks):
    r = 0
    for i in range(order.shape[0]):
        if i > 0 and sorted_values[i] != sorted_values[i - 1]:
            r += 1
        ranks[order[i]] = r
    return r + 1


@njit(**_JIT)
def _discordant_and_joint_ties(xs, yseq, levels):
    """(discordant pairs, pairs tied in both x and y) of items in x order: xs sorted, yseq their
    y ranks in [0, levels). A Fenwick tree holds the y ranks of every item of smaller x: each run
    of tied x is first counted against it (earlier items of larger y rank are discordant), then
    added, so ties in x need no sort (as scipy's _kendall_dis). Every 2**14-th cell is skipped,
    as there, so the tree's power-of-two strides do not all fall in the same cache sets."""
    n = xs.shape[0]
    size = levels + 1
    tree = np.zeros(size + (size >> 14) + 1, np.int64)
    in_run = np.zeros(levels, np.int64)  # y ranks seen so far in the current run of tied x
    dis = 0
    ntie = 0
    i = 0
    while i < n:
        j = i + 1
        while j < n and xs[j] == xs[i]:
            j += 1
        for k in range(i, j):
            v = yseq[k]
            idx = v + 1
            at_most = 0  # earlier items (smaller x) with y rank <= v
            while idx > 0:
                at_most += tree[idx + (idx >> 14)]
                idx &= idx - 1
            dis += i - at_most
            ntie += in_run[v]
            in_run[v] += 1
        for k in range(i, j):
            v = yseq[k]
            in_run[v] = 0
            idx = v + 1
            while idx < size:
                tree[idx + (idx >> 14)] += 1
                idx += idx & -idx
        i = j
    return dis, ntie


@njit(**_JIT)
def kendall_counts_from_orders(px, xs, py, ys, counts):
    """Pair counts (layout K_*) of one pair from its orders: px, py sort x and y, xs = x[px],
    ys = y[py]. y's dense ranks, read in x's order, go through one Fenwick tree pass: no sort
    beyond the two given (the key sort of x rank then y rank is not needed)."""
    n = px.shape[0]
    yr = np.empty(n, np.int64)
    ny = _dense_ranks_from_order(py, ys, yr)
    dis, ntie = _discordant_and_joint_ties(xs, yr[px], ny)  # y ranks read in x order
    _store_counts(counts, n, dis, ntie, _run_stats(xs), _run_stats(ys))


@njit(**_JIT)
def kendall_counts(x, y, counts):
    """Pair counts of (x, y) into counts (layout K_*) inside a kernel: the O(n^2) pair loop below
    _SMALL_N (no sort, no allocation), else Numba's sorts and kendall_counts_from_orders."""
    n = x.shape[0]
    if n >= _SMALL_N:
        px = np.argsort(x, kind="mergesort")
        py = np.argsort(y, kind="mergesort")
        kendall_counts_from_orders(px, x[px], py, y[py], counts)
        return
    dis = 0
    ntie = 0
    for i in range(n):
        for j in range(i + 1, n):
            dx = x[i] - x[j]
            dy = y[i] - y[j]
            if dx == 0.0:
                if dy == 0.0:
                    ntie += 1
            elif dy != 0.0 and (dx > 0.0) != (dy > 0.0):
                dis += 1
    _store_counts(counts, n, dis, ntie, _group_stats_small(x), _group_stats_small(y))


def pair_kendall_counts(x, y):
    """kendall_counts of one pair from Python: numpy's sorts, then kendall_counts_from_orders."""
    counts = np.empty(K_FIELDS, np.int64)
    px = np.argsort(x)
    py = np.argsort(y)
    kendall_counts_from_orders(px, x[px], py, y[py], counts)
    return counts


@njit(**_JIT)
def kendall_from_counts(counts, code):
    """Tau-a/b/c or gamma from a count vector, in scipy's operation order; NaN where undefined."""
    n = counts[K_N]
    tot = counts[K_TOT]
    xtie = counts[K_XTIE]
    ytie = counts[K_YTIE]
    if n < 2 or xtie == tot or ytie == tot:
        return np.nan
    cmd = counts[K_CON] - counts[K_DIS]
    if code == KENDALL_B:
        tau = cmd / np.sqrt(float(tot - xtie)) / np.sqrt(float(tot - ytie))
    elif code == KENDALL_A:
        tau = cmd / float(tot)
    elif code == KENDALL_C:
        m = min(counts[K_NXD], counts[K_NYD])
        tau = 2 * cmd / (float(n * n * (m - 1)) / m)
    else:  # GAMMA
        both = counts[K_CON] + counts[K_DIS]
        if both == 0:
            return np.nan
        tau = cmd / float(both)
    return min(1.0, max(-1.0, tau))


# ---------------------------------------------------------------- Spearman, Pearson and friends

@njit(**_JIT)
def _is_constant(a):
    for i in range(1, a.shape[0]):
        if a[i] != a[0]:
            return False
    return True


@njit(**_JIT)
def _max_abs(a):
    """np.max(np.abs(a)) of a non-empty array without NaN, by a loop (1 s less to compile)."""
    m = abs(a[0])
    for i in range(1, a.shape[0]):
        m = max(m, abs(a[i]))
    return m


@njit(**_JIT)
def pearson(x, y):
    """scipy.stats.pearsonr's statistic: centred, max-scaled norms, clipped; NaN if constant."""
    n = x.shape[0]
    if _is_constant(x) or _is_constant(y):
        return np.nan
    xm = x - mean(x)
    ym = y - mean(y)
    xmax = _max_abs(xm)
    ymax = _max_abs(ym)
    normx = xmax * np.sqrt(pairwise_sum((xm / xmax) ** 2, 0, n))
    normy = ymax * np.sqrt(pairwise_sum((ym / ymax) ** 2, 0, n))
    r = pairwise_sum((xm / normx) * (ym / normy), 0, n)
    r = min(1.0, max(-1.0, r))
    if n == 2:
        r = np.rint(r)  # np.round(r), which compiles a general rounding for 0.8 s more
    return r


@njit(**_JIT)
def spearman_from_orders(x, ox, y, oy):
    """Pearson correlation of average ranks (scipy.stats.spearmanr's statistic); ox, oy sort x, y."""
    n = x.shape[0]
    if _is_constant(x) or _is_constant(y):
        return np.nan
    rx = np.empty(n)
    ry = np.empty(n)
    average_ranks_from_order(x, ox, rx)
    average_ranks_from_order(y, oy, ry)
    # np.corrcoef's order: covariance by dot products, divided by the two standard deviations.
    xm = rx - mean(rx)
    ym = ry - mean(ry)
    f = 1.0 / (n - 1)
    sxy = pairwise_sum(xm * ym, 0, n) * f
    sxx = pairwise_sum(xm * xm, 0, n) * f
    syy = pairwise_sum(ym * ym, 0, n) * f
    r = sxy / np.sqrt(sxx) / np.sqrt(syy)
    return min(1.0, max(-1.0, r))


@njit(**_JIT)
def spearman(x, y):
    """spearman_from_orders inside a kernel (Numba's sorts)."""
    return spearman_from_orders(x, np.argsort(x, kind="mergesort"), y, np.argsort(y, kind="mergesort"))


@njit(**_JIT)
def rmse(x, y):
    return np.sqrt(mean((x - y) ** 2))


@njit(**_JIT)
def r2_determination(y_true, y_pred):
    """1 - SS_res / SS_tot (scikit-learn's r2_score); NaN when y_true is constant."""
    n = y_true.shape[0]
    res = pairwise_sum((y_true - y_pred) ** 2, 0, n)
    tot = pairwise_sum((y_true - mean(y_true)) ** 2, 0, n)
    if tot == 0.0:
        return np.nan
    return 1.0 - res / tot


# ---------------------------------------------------------------- one statistic, by code

KENDALL_CODES = (KENDALL_A, KENDALL_B, KENDALL_C, GAMMA)


def family_of(code):
    """The kernel family of a statistic code: the Kendall variants share one (KENDALL_B), since
    they differ only in kendall_from_counts; every other statistic is its own."""
    return KENDALL_B if code in KENDALL_CODES else code


@njit(inline="always", **_JIT)
def statistic(family, code, x, y):
    """The statistic of a paired sample (MEAN uses x only) inside a kernel. family (family_of(code))
    is a global constant of the calling kernel's copy (see _per_family): inlined there, the
    branches of the other families are pruned before Numba types them, so a kernel compiles the
    one statistic it serves. code picks the Kendall variant at run time."""
    if family == MEAN:
        return mean(x)
    if family == PEARSON:
        return pearson(x, y)
    if family == SPEARMAN:
        return spearman(x, y)
    if family == RMSE:
        return rmse(x, y)
    if family == R2:
        return r2_determination(x, y)
    counts = np.empty(K_FIELDS, np.int64)
    kendall_counts(x, y, counts)
    return kendall_from_counts(counts, code)


def statistic_of(code, x, y):
    """The statistic of one finite sample (float64, C-contiguous) from Python: the statistic's own
    serial kernel, after numpy's sorts for the rank statistics (as statistic(), to the last bit)."""
    if code == MEAN:
        return float(np.mean(x))  # numpy's pairwise sum, as mean() in the kernels
    if code in KENDALL_CODES:
        return kendall_from_counts(pair_kendall_counts(x, y), code)
    if code == SPEARMAN:
        return spearman_from_orders(x, np.argsort(x), y, np.argsort(y))
    if code == PEARSON:
        return pearson(x, y)
    if code == RMSE:
        return rmse(x, y)
    return r2_determination(x, y)


# ---------------------------------------------------------------- a kernel per statistic family
# A Numba kernel compiles every function it may call, whatever the arguments at run time, and a
# parallel kernel re-optimises all of it: a kernel able to compute every statistic costs 47 s of
# CPU to compile cold, paid by a user's first call. So each kernel that computes a statistic is a
# template compiled once per family (_per_family), with FAMILY a global constant of each copy; a
# call compiles only the family it asks for (10-20 s for a parallel one). Each copy's loop body
# is one call to a serial worker (itself a copy), so Numba's parfor passes see a tiny body.

FAMILY = MEAN  # placeholder: each copy of a template below rebinds it (see _per_family)


def _per_family(templates, families):
    """{family: kernel}: for each family, copies of the templates (serial workers first, the
    parallel kernel last) whose globals bind FAMILY to the family and each template's name to
    its own copy, compiled under names of their own (hence their own on-disk cache entries)."""
    kernels = {}
    for family in families:
        namespace = dict(globals(), FAMILY=family)
        for k, template in enumerate(templates):
            copy = types.FunctionType(template.__code__, namespace, template.__name__, template.__defaults__)
            copy.__qualname__ = f"{template.__qualname__}_{_FAMILY_NAMES[family]}"
            last = k == len(templates) - 1
            namespace[template.__name__] = _parallel_njit(copy) if last else njit(**_JIT)(copy)
        kernels[family] = namespace[templates[-1].__name__]
    return kernels


_FAMILY_NAMES = {MEAN: "mean", KENDALL_B: "kendall", SPEARMAN: "spearman", PEARSON: "pearson", RMSE: "rmse",
                 R2: "r2"}


@njit(**_JIT)
def _row_pair(x, y, omit):
    """Copies of (x, y) without the pairs holding NaN if omit (else whole), and whether any did."""
    has_nan = False
    for i in range(x.shape[0]):
        if np.isnan(x[i]) or np.isnan(y[i]):
            has_nan = True
            break
    if not (has_nan and omit):
        return x.copy(), y.copy(), has_nan
    keep = ~(np.isnan(x) | np.isnan(y))
    return x[keep], y[keep], has_nan


# ---------------------------------------------------------------- rows: one statistic per row pair

@njit(**_JIT)
def _row_kendall_counts(X, Y, r, omit, counts, nan_rows):
    x, y, has_nan = _row_pair(X[r], Y[r], omit)
    nan_rows[r] = has_nan
    if has_nan and not omit:
        for f in range(K_FIELDS):
            counts[r, f] = 0
    else:
        kendall_counts(x, y, counts[r])


@_parallel_njit
def rows_kendall_counts(X, Y, omit, counts, nan_rows):
    """Kendall counts of each row pair into counts[r] (zeros where a NaN propagates); nan_rows[r]:
    whether row r held a NaN pair (dropped if omit)."""
    for r in prange(X.shape[0]):
        _row_kendall_counts(X, Y, np.int64(r), omit, counts, nan_rows)


def _row_statistic(X, Y, r, omit, out, n_out, nan_rows):  # template (FAMILY)
    x, y, has_nan = _row_pair(X[r], Y[r], omit)
    nan_rows[r] = has_nan
    n_out[r] = x.shape[0]
    if (has_nan and not omit) or x.shape[0] < 2:
        out[r] = np.nan
    else:
        out[r] = statistic(FAMILY, FAMILY, x, y)


def _rows_statistic(X, Y, omit, out, n_out, nan_rows):  # template (FAMILY)
    for r in prange(X.shape[0]):
        _row_statistic(X, Y, np.int64(r), omit, out, n_out, nan_rows)


_ROWS_STATISTIC = _per_family((_row_statistic, _rows_statistic), (SPEARMAN, PEARSON))


def rows_statistic(code, X, Y, omit, out, n_out, nan_rows):
    """Spearman's or Pearson's statistic of each row pair into out, the pairs used into n_out,
    with the NaN handling of rows_kendall_counts (a NaN that propagates gives NaN)."""
    _ROWS_STATISTIC[code](X, Y, omit, out, n_out, nan_rows)


# ---------------------------------------------------------------- replicates: one statistic per resample

DRAWN = 1  # sample r is (X[0], Y[0]) at draw_indices(seed, r, n)
GIVEN = 2  # sample r is (X[0], Y[0]) at given_idx[r] (e.g. drawn by numpy as scipy does)
LEAVE_ONE_OUT = 3  # sample r is (X[0], Y[0]) without item r (the jackknife)
COLUMN_MEANS = 4  # sample r is (row means of X, row means of Y) over the columns draw_indices draws


@njit(**_JIT)
def _resampled_row_means(X, idx):
    m = idx.shape[0]
    means = np.empty(X.shape[0])
    for s in range(X.shape[0]):
        means[s] = gathered_pairwise_sum(X[s], idx, 0, m) / m
    return means


@njit(**_JIT)
def _replicate_indices(source, seed, r, n, given_idx):
    if source == GIVEN:
        return given_idx[r].copy()
    if source == LEAVE_ONE_OUT:  # a loop: slice assignments compile numpy's shape-error messages (4 s cold)
        idx = np.empty(n - 1, np.int64)
        for i in range(n - 1):
            idx[i] = i if i < r else i + 1
        return idx
    idx = np.empty(n, np.int64)
    draw_indices(seed, r, n, idx, _stream_scratch())
    return idx


def _replicate(code, source, X, Y, r, seed, given_idx, out):  # template (FAMILY)
    idx = _replicate_indices(source, seed, r, X.shape[1], given_idx)
    if source == COLUMN_MEANS:  # leaderboards: systems x queries, queries resampled
        x = _resampled_row_means(X, idx)
        y = _resampled_row_means(Y, idx)
    elif FAMILY == MEAN:  # summed through the indices: no gathered copy
        out[r] = gathered_pairwise_sum(X[0], idx, 0, idx.shape[0]) / idx.shape[0]
        return
    else:
        x = X[0][idx]
        y = Y[0][idx]
    out[r] = statistic(FAMILY, code, x, y)


def _replicates(code, source, X, Y, seed, given_idx, out):  # template (FAMILY)
    for r in prange(out.shape[0]):
        _replicate(code, source, X, Y, np.int64(r), seed, given_idx, out)


_REPLICATES = _per_family((_replicate, _replicates), tuple(_FAMILY_NAMES))
NO_INDICES = np.empty((0, 0), np.int64)


def resampled_statistic(code, x, y, source, seed, given_idx, out):
    """The statistic of (x, y) on out.shape[0] samples: DRAWN, GIVEN or LEAVE_ONE_OUT."""
    _REPLICATES[family_of(code)](code, source, x.reshape(1, -1), y.reshape(1, -1), seed, given_idx, out)


def resampled_leaderboard_statistic(code, A, B, seed, out):
    """The statistic between the system means of A and B (systems x queries) over resampled queries."""
    _REPLICATES[family_of(code)](code, COLUMN_MEANS, A, B, seed, NO_INDICES, out)


# ---------------------------------------------------------------- resampling means

_REPLICATES_PER_TASK = 8  # replicates sharing one scratch allocation


@njit(**_JIT)
def _mean_differences(d, seed, start, stop, out):
    scratch = _stream_scratch()
    for b in range(start, stop):
        out[b] = resampled_sum(d, seed, b, scratch) / d.shape[0]


@_parallel_njit
def bootstrap_mean_difference(d, n_resamples, seed, out):
    """Mean of resampled per-item differences (system X minus Y), one value per replicate."""
    for c in prange((n_resamples + _REPLICATES_PER_TASK - 1) // _REPLICATES_PER_TASK):
        _mean_differences(d, seed, c * _REPLICATES_PER_TASK, min(n_resamples, (c + 1) * _REPLICATES_PER_TASK), out)


@njit(**_JIT)
def _resample_mean_row(matrix, col, idx, b, out):
    n = idx.shape[1]
    n_m = matrix.shape[1]
    if n_m == 1:
        out[b, 0] = gathered_pairwise_sum(col, idx[b], 0, n) / n
        return
    acc = matrix[idx[b, 0]].copy()
    for i in range(1, n):
        row = matrix[idx[b, i]]
        for m in range(n_m):
            acc[m] += row[m]
    for m in range(n_m):
        out[b, m] = acc[m] / n


@_parallel_njit
def resample_means_rows(matrix, idx, out):
    """rouge-score's bootstrap: out[b, m] = mean over rows idx[b] of matrix[:, m].

    numpy's ``matrix[idx].mean(axis=0)`` adds rows one after another for a 2-D matrix, except
    with a single column, where the reduction is contiguous and pairwise; follow both.
    """
    col = np.ascontiguousarray(matrix[:, 0])
    for b in prange(idx.shape[0]):
        _resample_mean_row(matrix, col, idx, np.int64(b), out)


@njit(**_JIT)
def _kendall_null_counts(n, c, scaled):
    """scipy's recursion for the exact null distribution of Kendall's S: new[k] counts the
    permutations of n items with k inversions, k <= c (divided by n! as it goes if scaled).
    In place and by loops (numpy's slice arithmetic compiles its shape-error messages: 4 s cold),
    the same operations as scipy's: new = cumsum(new) (divided by j if scaled), then
    new[j:] -= new[:c + 1 - j] (from the top down, so each term is read before it changes)."""
    new = np.zeros(c + 1)
    new[0] = 1.0
    new[1] = 1.0
    for j in range(3, n + 1):
        running = 0.0
        for i in range(c + 1):
            running += new[i]
            new[i] = running / j if scaled else running
        if j <= c:
            for i in range(c, j - 1, -1):
                new[i] -= new[i - j]
    return new


def kendall_exact_pvalue(n, c, alternative):
    """scipy.stats._mstats_basic._kendall_p_exact ported (alternative: 0 two-sided, 1 less, 2 greater):
    the recursion in Numba, numpy's sum as scipy's."""
    half = (n * (n - 1)) // 2
    in_right_tail = c >= half - c
    c = min(c, half - c)
    p_mass = 0.0
    if n == 1:
        prob = 1.0
        p_mass = 1.0
    elif n == 2:
        prob = 1.0
        p_mass = 0.5
    elif c == 0:
        prob = 2.0 / _FACTORIAL[n] if n < 171 else 0.0
        p_mass = prob / 2
    elif c == 1:
        prob = 2.0 / _FACTORIAL[n - 1] if n < 172 else 0.0
        p_mass = (n - 1) / _FACTORIAL[n] if n < 171 else 0.0
    elif 4 * c == n * (n - 1) and alternative == 0:
        prob = 1.0
    else:
        scaled = n >= 171
        new = _kendall_null_counts(n, c, scaled)
        if scaled:
            prob = np.sum(new)
            p_mass = new[-1] / 2
        else:
            prob = 2.0 * np.sum(new) / _FACTORIAL[n]
            p_mass = new[-1] / _FACTORIAL[n]
    if alternative != 0:
        if in_right_tail == (alternative == 2):
            prob /= 2
        else:
            prob = 1 - prob / 2 + p_mass
    return float(min(1.0, max(0.0, prob)))


def _factorials():
    import math

    return np.array([float(math.factorial(k)) for k in range(171)])


_FACTORIAL = _factorials()


@njit(**_JIT)
def kendall_rows_from_counts(counts, code, out):
    for r in range(counts.shape[0]):
        out[r] = kendall_from_counts(counts[r], code)


@njit(**_JIT)
def _sign_flip_mean(d, b, seed):
    n = d.shape[0]
    state = _stream_start(seed, b)
    flipped = np.empty(n)
    bits = np.uint64(0)
    for i in range(n):
        if i % 64 == 0:
            state += _GOLDEN
            bits = _mix64(state)
        flipped[i] = -d[i] if (bits >> np.uint64(i % 64)) & np.uint64(1) else d[i]
    return pairwise_sum(flipped, 0, n) / n


@_parallel_njit
def sign_flip_means(d, n_resamples, seed, out):
    """Randomisation (Fisher) test replicates: mean of d with each sign flipped by a fair coin.

    Coins are the bits of the (seed, replicate)-keyed splitmix64 counter that seeds draw_indices'
    lanes, 64 per output.
    """
    for b in prange(n_resamples):
        out[b] = _sign_flip_mean(d, np.int64(b), seed)


# ---------------------------------------------------------------- streaming Poisson bootstrap
# Weight of example i (global index) in replicate r: Poisson(1) by inverse CDF of the 64-bit
# uniform u = mix64(mix64((i + 1) * GOLDEN) + _stream_start(seed, r)), a function of
# (seed, i, r) alone. Sums are exact: a finite double is m * 2**(p - 1074) with |m| < 2**53 and
# 0 <= p <= 2045; each cell keeps _LIMBS signed int64 limbs of 32 bits (limb q weighs
# 2**(32 q - 1074)), and a weighted value adds w * m spread over three limbs. Integer sums do not
# depend on order or grouping, and the normalised limbs (all but the top in [0, 2**32)) are unique
# for a given exact sum, so any split or merge of the examples gives the same arrays.

_LIMBS = 68  # 2045 + 53 + 31 bits plus room for carries: the top limb stays far below 2**31
_LIMB_MASK = np.int64(0xFFFFFFFF)
_FRACTION_BITS = np.uint64((1 << 52) - 1)
_EXPONENT_MASK = np.uint64(0x7FF)


def _poisson1_thresholds():
    """T[k] = floor(P(X <= k) * 2**64) for X ~ Poisson(1), while below 2**64 - 1 (k = 0..19:
    P(X > 19) < 2**-64, below the resolution of the 64-bit uniform).

    exp(-1) as its alternating series to 60 terms (error below 1/60! ~ 1e-82), in exact fractions.
    """
    from fractions import Fraction

    exp_minus_one = Fraction(0)
    term = Fraction(1)
    for j in range(60):
        exp_minus_one += term if j % 2 == 0 else -term
        term /= j + 1
    out = []
    cdf = Fraction(0)
    inverse_factorial = Fraction(1)
    for k in range(64):
        if k:
            inverse_factorial /= k
        cdf += exp_minus_one * inverse_factorial
        t = int(cdf * 2**64)
        if t >= 2**64 - 1:
            break
        out.append(t)
    return np.array(out, dtype=np.uint64)


POISSON1_THRESHOLDS = _poisson1_thresholds()
_N_THRESHOLDS = POISSON1_THRESHOLDS.shape[0]
MAX_POISSON1 = _N_THRESHOLDS  # the largest weight the inverse CDF gives


@njit(**_JIT)
def example_keys(start, n):
    """mix64((i + 1) * GOLDEN) for the global indices i = start .. start + n - 1."""
    out = np.empty(n, np.uint64)
    for i in range(n):
        out[i] = _mix64((np.uint64(start) + np.uint64(i + 1)) * _GOLDEN)
    return out


@njit(**_JIT)
def split_into_limbs(values, first, parts):
    """values (n x k finite doubles) as signed limb parts: values[i, j] = sum over t < 3 of
    parts[i, j, t] * 2**(32 (first[i, j] + t) - 1074), each |part| < 2**32."""
    bits = values.view(np.uint64)
    for i in range(values.shape[0]):
        for j in range(values.shape[1]):
            b = bits[i, j]
            e = (b >> np.uint64(52)) & _EXPONENT_MASK
            m = np.int64(b & _FRACTION_BITS)
            if e > 0:
                m |= np.int64(1) << 52
                e -= np.uint64(1)  # value = m * 2**(e - 1074); subnormals have e = 0 already
            p = np.int64(e)
            sh = p & 31
            low = (m & ((np.int64(1) << (32 - sh)) - 1)) << sh
            rest = m >> (32 - sh)
            sign = np.int64(-1) if b >> np.uint64(63) else np.int64(1)
            first[i, j] = p >> 5
            parts[i, j, 0] = sign * low
            parts[i, j, 1] = sign * (rest & _LIMB_MASK)
            parts[i, j, 2] = sign * (rest >> 32)


@njit(**_JIT)
def normalise_limbs(limbs):
    """Carry every cell of limbs [k, _LIMBS, rows] so that limbs 0 .. _LIMBS - 2 lie in [0, 2**32)
    (the unique form of the cell's sum). Vectorised over the rows."""
    rows = limbs.shape[2]
    carry = np.zeros(rows, np.int64)
    for j in range(limbs.shape[0]):
        carry[:] = 0
        for q in range(limbs.shape[1] - 1):
            for r in range(rows):
                v = limbs[j, q, r] + carry[r]
                limbs[j, q, r] = v & _LIMB_MASK
                carry[r] = v >> 32  # arithmetic shift: floor division
        for r in range(rows):
            limbs[j, limbs.shape[1] - 1, r] += carry[r]


@njit(**_JIT)
def replicate_keys(seed, n_resamples):
    out = np.empty(n_resamples, np.uint64)
    for r in range(n_resamples):
        out[r] = _stream_start(seed, r)
    return out


_BRANCH_FREE = 6  # weights counted without a branch; P(w >= 6) = 6e-4 goes through a second pass


@njit(**_JIT)
def _poisson_rows(example_key, row_keys, r0, r1, u, w):
    """w[r - r0] = the Poisson(1) weight of the example in replicates r0 .. r1 - 1 (u: scratch)."""
    t = POISSON1_THRESHOLDS
    any_tail = False
    for r in range(r0, r1):  # vectorised: no branch
        x = _mix64(example_key + row_keys[r])
        c = np.int64(0)
        for m in range(_BRANCH_FREE):
            c += np.int64(x >= t[m])
        u[r - r0] = x
        w[r - r0] = c
        any_tail |= c == _BRANCH_FREE
    if any_tail:
        for s in range(r1 - r0):
            c = w[s]
            while c < _N_THRESHOLDS and u[s] >= t[c]:
                c += 1
            w[s] = c


@njit(**_JIT)
def _poisson_chunk(keys, first, parts, row_keys, r0, r1, limbs, weights):
    n = keys.shape[0]
    k = first.shape[1]
    u = np.empty(r1 - r0, np.uint64)
    w = np.empty(r1 - r0, np.int64)
    for i in range(n):
        _poisson_rows(keys[i], row_keys, r0, r1, u, w)
        for s in range(r1 - r0):
            weights[r0 + s] += w[s]
        for j in range(k):
            q = first[i, j]
            for t in range(3):
                p = parts[i, j, t]
                if p != 0:
                    row = limbs[j, q + t]
                    for s in range(r1 - r0):
                        row[r0 + s] += w[s] * p


@njit(**_JIT)
def poisson1_weights(keys, row_keys, out):
    """out[i, r] = the weight of example keys[i] in replicate r (what the accumulator adds; for tests)."""
    u = np.empty(row_keys.shape[0], np.uint64)
    for i in range(keys.shape[0]):
        _poisson_rows(keys[i], row_keys, 0, row_keys.shape[0], u, out[i])


_POISSON_ROWS_PER_TASK = 128


@_parallel_njit
def poisson_bootstrap_update(keys, first, parts, row_keys, limbs, weights):
    """Add the examples (their example_keys, and split_into_limbs' first and parts) to limbs[:, :, r]
    (replicate r's exact weighted sums) and weights[r] (its total weight) for every replicate r
    (row_keys[r] = _stream_start(seed, r)). Replicates in parallel, in vectors; integer sums, so
    the result does not depend on the thread count. The caller normalises after at most 2**24
    examples (|w * part| < 2**37, limbs below 2**63)."""
    rows = row_keys.shape[0]
    for c in prange((rows + _POISSON_ROWS_PER_TASK - 1) // _POISSON_ROWS_PER_TASK):
        r0 = c * _POISSON_ROWS_PER_TASK
        _poisson_chunk(keys, first, parts, row_keys, r0, min(rows, r0 + _POISSON_ROWS_PER_TASK), limbs, weights)


@njit(**_JIT)
def add_unweighted(first, parts, limbs):
    """Add the examples with weight 1 to limbs [k, _LIMBS] (the point estimate's exact sums)."""
    for i in range(first.shape[0]):
        for j in range(first.shape[1]):
            q = first[i, j]
            for t in range(3):
                limbs[j, q + t] += parts[i, j, t]
