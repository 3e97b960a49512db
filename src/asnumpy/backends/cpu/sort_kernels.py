"""Sorting kernels of the cpu back end, and NumPy calls with data-dependent results.

``sort`` and ``argsort`` run NumPy's sort on device memory; large ones are
split across threads (:mod:`.parallel`) only where the result is certainly
the one a single ``numpy.sort``/``numpy.argsort`` gives:

* N-D arrays: the lines being sorted are independent, so they are dealt out
  to the threads (each line is sorted by NumPy's routine, as one call would).
* one long line: contiguous runs are sorted in parallel, then merged pairwise
  (each merge cut into pieces along its *merge path*, every piece merged by
  NumPy's stable sort, which is linear on two runs).  A stable sort is exact
  by construction.  For an unstable kind the merged result is NumPy's only
  when no two elements are equal in sort order but distinguishable
  (``-0.0``/``0.0``, NaNs with different payloads; for argsort: any tie):
  that is checked after the merge, and the line is sorted again by one
  NumPy call if it fails.
* ``argsort`` of a long line of 32 bits or less sorts 64-bit keys ``(order
  bits) << 32 | index`` as above: distinct keys, so the fastest (SIMD) sort
  gives the stable order, and the merges move one array instead of two.
  That order is also the answer for the unstable kinds: NumPy leaves the
  order of equal elements unspecified for them (its SIMD dispatch picks a
  different sort per CPU), and random data of these sizes always holds
  ties, so matching one NumPy build's tie order would mean one NumPy call.
  Wider dtypes keep NumPy's order: a sorted sample holding ties sends an
  unstable argsort straight to one NumPy call.

``call_held`` / ``copy_held`` run a NumPy function whose result sizes depend
on the data (``unique``, set operations, ``bincount`` ...): the first writes
the results' dtypes and shapes into a small device array and keeps the
results in a host-side holder; the front end allocates outputs of those
shapes and ``copy_held`` copies the held results into them.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np

from ..._dtypes import dtype_code
from . import fpstatus, parallel
from .kernels import view

__all__ = ["META_RESULTS", "META_WIDTH", "SINGLE_ARGSORTS", "SINGLE_SORTS", "SORT_KERNELS",
           "SPLIT_MIN"]

# Defaults, replaced when the back end loads by the choices measured on this CPU
# (.calibration; ASNUMPY_CALIBRATION=off keeps them).  Read at each call: tests set them.
SPLIT_MIN = 1 << 19        # elements: below this one NumPy call is as fast
# The dtypes whose long 1-D lines one NumPy sort/argsort call sorts faster than a split
# (a CPU whose NumPy has a fast SIMD sort): "float32", "float64", "int32", "int64" stand
# for every float and integer dtype of their width (narrower ones count as 32 bits).
SINGLE_SORTS: frozenset = frozenset()
SINGLE_ARGSORTS: frozenset = frozenset()
META_WIDTH = 2 + 32        # per result: dtype char code, ndim, up to 32 lengths
META_RESULTS = 64          # results a held call can report

_KINDS = "biuf"            # dtypes whose lines may be split (complex and others: one call)


def _is_stable(kind, stable):
    return bool(stable) or (kind is not None and str(kind)[:1].lower() in "ms")


def _radix(dtype, kind, stable):
    """Whether NumPy sorts ``dtype`` by radix sort: the stable kinds of integers (and
    bools) of 16 bits at most.  That is linear and memory-bound: one call beats any split."""
    return dtype.kind in "biu" and dtype.itemsize <= 2 and _is_stable(kind, stable)


def _single_call(dtype, kind, stable, want_index):
    """Whether the calibration chose NumPy's own single call for an unstable sort of ``dtype``."""
    if _is_stable(kind, stable):
        return False                   # stable kinds are timsort or radix: not SIMD
    width = 64 if dtype.itemsize == 8 else 32
    name = f"float{width}" if dtype.kind == "f" else f"int{width}"
    return name in (SINGLE_ARGSORTS if want_index else SINGLE_SORTS)


def _lt(x, y):
    """``x < y`` in NumPy's sort order (NaN last)."""
    return bool(x < y) or (bool(np.isnan(y)) and not np.isnan(x))


def _merge_split(a, b, k):
    """How many of the first ``k`` merged elements come from ``a`` (ties: ``a`` first)."""
    lo, hi = max(0, k - len(b)), min(k, len(a))
    while lo < hi:
        mid = (lo + hi) // 2
        if not _lt(b[k - mid - 1], a[mid]):
            lo = mid + 1
        else:
            hi = mid
    return lo


def _scratch(n, dtype):
    """A 1-D scratch array; large ones come from the host pool, already faulted in
    (a fresh 64 MB NumPy array pays its page faults on every sort)."""
    from . import BACKEND  # the package imports this module: look it up late

    return BACKEND.host_empty((n,), dtype)


def _bounds(n, parts):
    return [n * i // parts for i in range(parts + 1)]


def _sort_line(x, kind, stable, want_index, dest_values, dest_index):
    """Sort 1-D ``x`` across threads into ``dest_values`` (and ``dest_index``).

    Returns False when the result might differ from one NumPy call's (then
    nothing useful was written).
    """
    n = x.shape[0]
    parts = parallel.thread_count()
    bounds = _bounds(n, parts)
    values = _scratch(n, x.dtype)
    index = _scratch(n, np.dtype(np.intp)) if want_index else None
    sort_kw = {"stable": True} if stable else {"kind": kind}

    def sort_run(i):
        lo, hi = bounds[i], bounds[i + 1]
        if want_index:
            order = np.argsort(x[lo:hi], **sort_kw)
            np.take(x[lo:hi], order, out=values[lo:hi])
            np.add(order, lo, out=index[lo:hi])
        else:
            np.copyto(values[lo:hi], x[lo:hi])
            values[lo:hi].sort(**sort_kw)

    flags = parallel.run(sort_run, parts)
    flags |= _merge_runs(values, index, bounds, dest_values, dest_index)
    fpstatus.replay(flags, "sort")
    return stable or _unambiguous(dest_values, x, want_index)


def _merge_runs(values, index, bounds, dest_values, dest_index):
    """Merge the sorted runs ``values[bounds[i]:bounds[i + 1]]`` into ``dest_values``.

    Runs are merged pairwise, level by level (ties: the earlier run first,
    so a stable sort stays stable); ``index`` (or None) is carried along
    into ``dest_index``.  Returns the floating-point status flags raised.
    """
    n, parts = values.shape[0], len(bounds) - 1
    want_index = index is not None
    runs = list(itertools.pairwise(bounds))
    flags = 0
    while len(runs) > 1:
        last = len(runs) <= 2
        out_values = dest_values if last else _scratch(n, values.dtype)
        out_index = (dest_index if last else _scratch(n, np.dtype(np.intp))) if want_index else None
        pairs = [(runs[i], runs[i + 1]) for i in range(0, len(runs) - 1, 2)]
        pieces = []
        per_pair = max(1, parts // len(pairs))
        for (alo, ahi), (blo, bhi) in pairs:
            a, b = values[alo:ahi], values[blo:bhi]
            total = (ahi - alo) + (bhi - blo)
            cuts = [(k, _merge_split(a, b, k)) for k in _bounds(total, per_pair)]
            for (k0, i0), (k1, i1) in itertools.pairwise(cuts):
                pieces.append((alo, blo, k0, i0, k1, i1))
        if len(runs) % 2:
            lo, hi = runs[-1]
            pieces.append((lo, None, lo, hi, None, None))

        def merge(p, pieces=pieces, out_values=out_values, out_index=out_index, values=values,
                  index=index):
            alo, blo, k0, i0, k1, i1 = pieces[p]
            if blo is None:                 # an odd run out: carried over as it is
                np.copyto(out_values[k0:i0], values[k0:i0])
                if want_index:
                    np.copyto(out_index[k0:i0], index[k0:i0])
                return
            o0, o1, na = alo + k0, alo + k1, i1 - i0
            va = values[alo + i0:alo + i1]
            vb = values[blo + k0 - i0:blo + k1 - i1]
            if want_index:
                merged = np.concatenate((va, vb))
                order = np.argsort(merged, stable=True)
                np.take(merged, order, out=out_values[o0:o1])
                ia = index[alo + i0:alo + i1]
                ib = index[blo + k0 - i0:blo + k1 - i1]
                np.take(np.concatenate((ia, ib)), order, out=out_index[o0:o1])
            else:
                np.copyto(out_values[o0:o0 + na], va)
                np.copyto(out_values[o0 + na:o1], vb)
                out_values[o0:o1].sort(stable=True)

        flags |= parallel.run(merge, len(pieces))
        values, index = out_values, out_index
        runs = [(pairs[i][0][0], pairs[i][1][1]) for i in range(len(pairs))] + (
            [runs[-1]] if len(runs) % 2 else [])
    return flags


# Packed-key argsort: for dtypes of up to 32 bits, ``argsort`` is a plain sort
# of 64-bit keys ``(order bits of the value) << 32 | index``.  The keys are
# distinct, so any sort of them (NumPy's fast SIMD one) gives the stable order
# of the values, and merging runs moves one array instead of two.
_INDEX_BITS = 32
_INDEX_MASK = np.uint64((1 << _INDEX_BITS) - 1)


def _order_bits(x):
    """Unsigned integers that sort as NumPy sorts ``x`` (a dtype of 32 bits at most).

    Values NumPy's sort holds equal get equal bits: ``-0.0`` and ``0.0``, and
    every NaN (sorted last, above ``inf``).
    """
    unsigned = np.dtype(f"u{x.dtype.itemsize}")
    if x.dtype.kind in "bu":
        return x.view(unsigned)
    sign = unsigned.type(1 << (8 * unsigned.itemsize - 1))
    if x.dtype.kind == "i":                  # two's complement: flip the sign bit
        return x.view(unsigned) ^ sign
    bits = (x + x.dtype.type(0)).view(unsigned)      # + 0 makes -0.0 into 0.0
    # IEEE order: negative values reversed (all bits flipped), positive ones above them
    flip = np.negative(bits >> unsigned.type(8 * unsigned.itemsize - 1)) | sign
    bits ^= flip
    np.copyto(bits, np.iinfo(unsigned).max, where=np.isnan(x))
    return bits


def _packable(x):
    return (x.dtype.kind in "biuf" and x.dtype.itemsize <= 4
            and x.shape[0] <= 1 << _INDEX_BITS)


def _argsort_packed(x, dest_index):
    """``dest_index[...] = numpy.argsort(x, stable=True)`` for 1-D ``x`` of a
    :func:`_packable` dtype (also the answer for the unstable kinds: see above)."""
    n = x.shape[0]
    parts = parallel.thread_count()
    bounds = _bounds(n, parts)
    keys = _scratch(n, np.dtype(np.uint64))
    shift = np.uint64(_INDEX_BITS)

    def sort_run(i):
        lo, hi = bounds[i], bounds[i + 1]
        run = keys[lo:hi]
        np.copyto(run, _order_bits(x[lo:hi]), casting="unsafe")
        np.left_shift(run, shift, out=run)
        np.bitwise_or(run, np.arange(lo, hi, dtype=np.uint64), out=run)
        run.sort()

    parallel.run(sort_run, parts)
    merged = _scratch(n, np.dtype(np.uint64))
    _merge_runs(keys, None, bounds, merged, None)

    def unpack(i):
        lo, hi = bounds[i], bounds[i + 1]
        np.bitwise_and(merged[lo:hi], _INDEX_MASK, out=dest_index[lo:hi], casting="unsafe")

    parallel.run(unpack, parts)


# An unstable argsort of a wider dtype is NumPy's only without ties; a sorted
# sample of every SAMPLE_STEP-th element that holds ties shows it is not worth trying.
SAMPLE_STEP = 16


def _sample_ties(x):
    """True when a sample of 1-D ``x`` already holds values that tie in sort order."""
    return not _unambiguous(np.sort(x[::SAMPLE_STEP]), None, True)


def _unambiguous(s, x, want_index):
    """True when the sorted line ``s`` (of ``x``) is the same for any unstable sort.

    NumPy's SIMD quicksort does not even keep the bit patterns of equal
    floats: it may turn ``-0.0`` into ``0.0`` and canonicalises NaNs.  So an
    input holding zeros of both signs is ambiguous, and so are NaNs whose bit
    patterns differ in the result.
    """
    # NaN of s's own dtype: a Python float would make NumPy cast all of s to float64
    if want_index:
        if s.dtype.kind == "f":
            nan_from = int(np.searchsorted(s, s.dtype.type(np.nan)))
            if s.shape[0] - nan_from > 1:
                return False
            s = s[:nan_from]
        return not bool(np.any(s[1:] == s[:-1]))
    if s.dtype.kind != "f":
        return True                          # equal integers are indistinguishable
    zero = s.dtype.type(0)
    lo, hi = np.searchsorted(s, zero, "left"), np.searchsorted(s, zero, "right")
    if hi - lo > 1:
        signs = np.signbit(x[x == zero])
        if signs.any() and not signs.all():
            return False
    nan_from = int(np.searchsorted(s, s.dtype.type(np.nan)))
    if s.shape[0] - nan_from > 1:
        bits = s[nan_from:].view(f"u{s.dtype.itemsize}")
        if np.any(bits != bits[0]):
            return False
    return True


def _split_lines(x, axis, parts):
    """Slices of ``x`` (along an axis other than ``axis``) for ``parts`` threads, or None."""
    for ax in range(x.ndim):
        if ax != axis and x.shape[ax] >= parts:
            bounds = _bounds(x.shape[ax], parts)
            return [(slice(None),) * ax + (slice(bounds[i], bounds[i + 1]),)
                    for i in range(parts)]
    return None


def _sort_into(dest, x, axis, kind, stable, want_index):
    """``dest[...] = numpy.sort/argsort(x, axis, ...)``, split across threads when it pays."""
    sort_kw = {"stable": True} if stable else {"kind": kind}
    function = np.argsort if want_index else np.sort
    if axis is None:
        x, axis = x.reshape(-1), 0
    parts = parallel.thread_count()
    if (parts > 1 and x.size >= SPLIT_MIN and x.dtype.kind in _KINDS
            and not (x.dtype.kind == "f" and x.dtype.itemsize > 8)
            and not _radix(x.dtype, kind, stable)):
        if x.ndim == 1 and _single_call(x.dtype, kind, stable, want_index):
            if not want_index:               # NumPy's own sort is the fastest here: run it
                parallel.copyto(dest, x)     # in place on the result (one copy fewer)
                dest.sort(**sort_kw)
                return
        elif x.ndim == 1:
            stable_kind = _is_stable(kind, stable)
            if want_index:
                if _packable(x):
                    _argsort_packed(x, dest)
                    return
                if not stable_kind and _sample_ties(x):
                    pass                     # ties: only NumPy's own sort gives its order
                else:
                    values = np.empty(x.shape[0], x.dtype)
                    if _sort_line(x, kind, stable_kind, True, values, dest):
                        return
            elif _sort_line(x, kind, stable_kind, False, dest, None):
                return
        else:
            pieces = _split_lines(x, axis, parts)
            if pieces is not None:
                def piece(i):
                    np.copyto(dest[pieces[i]], function(x[pieces[i]], axis=axis, **sort_kw))

                fpstatus.replay(parallel.run(piece, len(pieces)), "sort")
                return
    parallel.copyto(dest, function(x, axis=axis, **sort_kw))


def sort(out, a, axis, kind, stable) -> None:
    """``out[...] = numpy.sort(a, axis, kind, stable=stable)``; ``out`` may be ``a`` (in place)."""
    stable = stable if stable else None
    x = view(a)
    if out is a:
        if (x.size < SPLIT_MIN or parallel.thread_count() < 2 or _radix(x.dtype, kind, stable)
                or (x.ndim == 1 and _single_call(x.dtype, kind, stable, False))):
            x.sort(axis=axis, kind=kind, stable=stable)
        else:
            _sort_into(x, x.copy(), axis, kind, stable, False)
        return
    _sort_into(view(out), x, axis, kind, stable, False)


def argsort(out, a, axis, kind, stable) -> None:
    """``out[...] = numpy.argsort(a, axis, kind, stable=stable)``."""
    _sort_into(view(out), view(a), axis, kind, stable if stable else None, True)


def _flatten(result):
    if isinstance(result, (tuple, list)):
        return [item for part in result for item in _flatten(part)]
    return [np.asarray(result)]


def call_held(meta, holder, name, args, kwargs) -> None:
    """Run ``numpy.<name>``; keep its results in ``holder``, their dtypes and shapes in ``meta``.

    Nested tuples/lists of results are flattened in order.  ``meta`` (int64,
    ``META_RESULTS * META_WIDTH``) gets the count first, then per result its
    dtype's code (``asnumpy._dtypes.dtype_code``), ndim and shape.
    """
    function = functools.reduce(getattr, name.split("."), np)
    args = [_native(x) for x in args]
    kwargs = {key: _native(value) for key, value in kwargs.items()}
    results = _flatten(function(*args, **kwargs))
    if len(results) > META_RESULTS - 1:
        raise ValueError(f"numpy.{name} returned more than {META_RESULTS - 1} arrays")
    info = np.zeros(META_RESULTS * META_WIDTH, np.int64)
    info[0] = len(results)
    for i, r in enumerate(results):
        row = info[(i + 1) * META_WIDTH:(i + 2) * META_WIDTH]
        row[0], row[1] = dtype_code(r.dtype), r.ndim
        row[2:2 + r.ndim] = r.shape
    holder[:] = results
    np.copyto(view(meta), info)


def copy_held(outs, holder) -> None:
    """Copy the results kept by :func:`call_held` into ``outs`` and forget them."""
    results, holder[:] = list(holder), []
    for out, value in zip(outs, results):
        if value.size:
            parallel.copyto(view(out), value)


def _native(value):
    if isinstance(value, (tuple, list)):
        return type(value)(_native(v) for v in value)
    if hasattr(value, "__asnumpy_device__"):
        return view(value)
    return value


def _host_or_view(value):
    return view(value) if hasattr(value, "_realize") else value


def searchsorted(out, a, v, side, sorter) -> None:
    """``numpy.searchsorted(a, v, side, sorter)`` into ``out``; many needles are
    split across threads (each binary search is independent: identical results)."""
    haystack, needles, order = view(a), _host_or_view(v), _host_or_view(sorter)
    target = view(out)
    parts = min(parallel.thread_count(), target.size // (SPLIT_MIN // 4))
    if parts < 2:
        np.copyto(target, np.searchsorted(haystack, needles, side=side, sorter=order))
        return
    flat_needles = np.ascontiguousarray(needles).reshape(-1)
    flat_out = target.reshape(-1)               # a fresh pooled array: contiguous
    bounds = _bounds(flat_out.size, parts * 4)

    def search(i):
        lo, hi = bounds[i], bounds[i + 1]
        flat_out[lo:hi] = np.searchsorted(haystack, flat_needles[lo:hi], side=side,
                                          sorter=order)

    parallel.run(search, len(bounds) - 1)


SORT_KERNELS = {
    "searchsorted": searchsorted,
    "sort": sort,
    "argsort": argsort,
    "call_held": call_held,
    "copy_held": copy_held,
}
