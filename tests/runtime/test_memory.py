"""The memory pool: size classes, reuse, statistics, limits, out-of-memory."""

import gc
import io
import re
import resource
import threading
import weakref

import numpy as np
import pytest

import asnumpy as ap
from asnumpy.runtime.memory import round_size


def _allocate(nbytes, device=None):
    """A fresh uint8 device array of ``nbytes`` (memory from the pool)."""
    return ap.ndarray((nbytes,), np.uint8, device=device)


@pytest.mark.parametrize("nbytes", [1, 511, 512, 513, 4095, 1 << 20, (1 << 20) + 1,
                                    3_000_000, 256 << 20, (1 << 30) + 12345])
def test_size_classes_cover_the_request_with_bounded_waste(nbytes):
    size = round_size(nbytes)
    assert size >= nbytes
    assert size % 512 == 0
    assert size - nbytes < max(512, nbytes // 8 + 1)
    assert round_size(size) == size


def test_statistics_return_to_baseline(rng, pool):
    baseline = pool.used_bytes()
    arrays = [ap.asarray(rng.random(n)) for n in (1, 100, 10_000, 1_000_000)]
    views = [a[::2] for a in arrays]
    assert pool.used_bytes() >= baseline + sum(a.nbytes for a in arrays)
    del arrays
    assert pool.used_bytes() > baseline  # the views keep their memory alive
    del views
    assert pool.used_bytes() == baseline
    assert pool.total_bytes() == pool.used_bytes() + pool.free_bytes()


def test_freed_blocks_are_reused(pool):
    pool.free_all_blocks()
    a = _allocate(3_000_000)
    total = pool.total_bytes()
    del a
    assert pool.n_free_blocks() == 1 and pool.free_bytes() == round_size(3_000_000)
    b = _allocate(2_990_000)             # the same size class
    assert pool.n_free_blocks() == 0 and pool.total_bytes() == total
    del b
    pool.free_all_blocks()
    assert pool.n_free_blocks() == 0 and pool.free_bytes() == 0


def test_peak_tracks_the_high_water_mark(pool):
    pool.reset_peak()
    start = pool.peak_bytes()
    a = _allocate(5 << 20)
    b = _allocate(5 << 20)
    high = pool.used_bytes()
    del a, b
    assert pool.peak_bytes() == high > start
    pool.reset_peak()
    assert pool.peak_bytes() == pool.used_bytes()


def test_limit_raises_out_of_memory_and_pool_stays_usable(rng, pool):
    pool.free_all_blocks()
    keep = ap.asarray(rng.random(1000))
    expected = keep.get()
    pool.set_limit(size=pool.used_bytes() + (8 << 20))
    assert pool.get_limit() == pool.used_bytes() + (8 << 20)
    with pytest.raises(ap.OutOfMemoryError) as info:
        _allocate(64 << 20)
    error = info.value
    assert isinstance(error, MemoryError) and isinstance(error, ap.MemoryError)
    message = str(error)
    assert str(pool.device) in message and f"{64 << 20:,}" in message and "limit" in message
    assert error.requested == 64 << 20 and error.limit == pool.get_limit()
    small = _allocate(1 << 20)           # still usable
    del small
    np.testing.assert_array_equal(keep.get(), expected)  # nothing corrupted


def test_limit_is_met_by_releasing_cached_blocks(pool):
    pool.free_all_blocks()
    base = pool.used_bytes()
    pool.set_limit(size=base + (10 << 20))
    a = _allocate(6 << 20)
    del a                                # cached: the pool now holds 6 MiB unused
    b = _allocate(8 << 20)               # needs the cache released first
    assert pool.free_bytes() == 0
    del b


def test_limit_is_met_by_collecting_garbage(pool):
    pool.free_all_blocks()
    base = pool.used_bytes()
    pool.set_limit(size=base + (10 << 20))
    gc.disable()
    try:
        cycle = [_allocate(6 << 20)]
        cycle.append(cycle)              # unreachable only to the cycle collector
        del cycle
        b = _allocate(8 << 20)           # succeeds after gc.collect()
        del b
    finally:
        gc.enable()


def test_set_limit_arguments(pool):
    with pytest.raises(ValueError, match="exactly one"):
        pool.set_limit()
    with pytest.raises(ValueError, match="exactly one"):
        pool.set_limit(size=1, fraction=0.5)
    with pytest.raises(ValueError, match="fraction"):
        pool.set_limit(fraction=1.5)
    with pytest.raises(ValueError, match="non-negative"):
        pool.set_limit(size=-1)
    pool.set_limit(fraction=0.5)
    assert 0 < pool.get_limit() < 2 * pool._allocator.total_memory()
    pool.set_limit(size=0)
    assert pool.get_limit() == 0


def test_asnumpy_pool_controls(pool):
    assert ap.get_default_memory_pool() is pool
    assert ap.get_default_memory_pool("cpu:1") is ap.Device("cpu:1").memory_pool
    ap.set_memory_pool_size(device=pool.device, size=1 << 30)
    assert pool.get_limit() == 1 << 30
    ap.set_memory_pool_size(size=0)
    ap.disable_memory_pool()
    a = _allocate(1 << 20)
    del a
    assert pool.free_bytes() == 0 and pool.n_free_blocks() == 0
    ap.enable_memory_pool()
    a = _allocate(1 << 20)
    del a
    assert pool.n_free_blocks() >= 1
    with pytest.raises(TypeError, match="size"):
        ap.set_memory_pool_size(device=pool.device)


def test_memory_summary_is_readable(pool):
    a = _allocate(1 << 20)
    b = _allocate(3 << 20)
    del b
    text = ap.memory_summary()
    for name in ("cpu:0", "cpu:1", "used", "cached", "limit", "free blocks"):
        assert name in text
    assert "asnumpy memory pool: cpu:2" in ap.memory_summary("cpu:2")
    assert "3.00 MiB x 1" in ap.memory_summary(pool.device)
    del a


def test_pools_are_per_device(pool):
    other = ap.Device("cpu:1").memory_pool
    before = other.used_bytes(), pool.used_bytes()
    a = ap.asarray(np.ones(1000), device="cpu:1")
    assert other.used_bytes() > before[0] and pool.used_bytes() == before[1]
    del a


def test_huge_requests_raise_out_of_memory_and_do_not_crash(pool):
    with pytest.raises(MemoryError, match=str(pool.device)):
        _allocate(1 << 55)
    with pytest.raises(ValueError, match="too big"):
        ap.ndarray((1 << 40, 1 << 40), np.float64)
    assert ap.asarray([1, 2, 3]).get().tolist() == [1, 2, 3]


def test_a_limit_counts_every_array(rng, pool):
    # The cpu fast lane gives a small result NumPy's own memory; under a limit
    # every result comes from the pool: used_bytes() sees it and the limit holds.
    pool.free_all_blocks()
    x = ap.asarray(rng.random(1000))     # 8000-byte results
    base = pool.used_bytes()
    limit = base + (16 << 20)
    pool.set_limit(size=limit)
    assert pool.accounting
    held = []
    with pytest.raises(ap.OutOfMemoryError):
        for _ in range(2500):                       # about 43 MiB if nothing were refused
            held += [x + x, ap.exp(x), x * 2.0, x.sum(), ap.mean(x), -x]
            assert pool.used_bytes() <= limit
    assert pool.used_bytes() >= base + sum(a.nbytes for a in held) > base + (15 << 20)
    np.testing.assert_array_equal(held[0].get(), x.get() + x.get())
    del held
    assert pool.used_bytes() == base
    pool.set_limit(size=0)
    assert not pool.accounting


@pytest.mark.cpu_default("only the cpu fast lane gives small results NumPy's own memory")
def test_set_accounting_counts_every_array_without_a_limit(pool):
    x = ap.asarray(np.arange(100.0))
    base = pool.used_bytes()
    small = x + 1
    assert pool.used_bytes() == base                # the lane's NumPy memory: not counted
    pool.set_accounting(True)
    try:
        assert pool.accounting and "counts every array" in pool.summary()
        counted = [x + 1, ap.sqrt(x), x.max()]              # 800, 800 and 8 bytes
        assert pool.used_bytes() == base + 1024 + 1024 + 512
        np.testing.assert_array_equal(counted[1].get(), np.sqrt(np.arange(100.0)))
        pool.set_limit(size=1 << 40)
        pool.set_accounting(False)
        assert pool.accounting                      # a limit keeps it on
        pool.set_limit(size=0)
        assert not pool.accounting
        del counted
        assert pool.used_bytes() == base
    finally:
        pool.set_accounting(False)
    del small


class _Sentinel:
    """An object of a caller's frame, to see whether a failure keeps that frame."""


def _fail_holding_a_sentinel(allocate):
    """Call ``allocate()`` (which must raise MemoryError) from a frame holding a
    sentinel and an 8 MiB array; return a weak reference to the sentinel."""
    sentinel, held = _Sentinel(), ap.ones(1 << 20)      # noqa: F841 (kept by the frame)
    reference = weakref.ref(sentinel)
    try:
        allocate()
    except MemoryError:
        pass
    return reference


def test_an_allocation_failure_keeps_no_frames(pool):
    # The allocator's error (the OutOfMemoryError's cause) has a traceback that
    # holds the failing call's frames and so their arrays: the pool must keep
    # neither it nor a reference cycle through it, so that the arrays go as soon
    # as the caller is done with the error (without waiting for gc.collect()).
    gc.collect()                # earlier tests' cyclic garbage must not move the baseline
    base = pool.used_bytes()
    gc.disable()
    try:
        reference = _fail_holding_a_sentinel(lambda: ap.ones(1 << 44))
        assert reference() is None
        assert pool.used_bytes() == base
    finally:
        gc.enable()
    with pytest.raises(ap.OutOfMemoryError) as info:
        ap.ones(1 << 44)
    assert isinstance(info.value.__cause__, MemoryError | OSError | ValueError | OverflowError)
    del info
    gc.collect()
    assert pool.used_bytes() == base


def test_a_cuda_out_of_memory_keeps_no_frames():
    # the cuda allocator turns the driver's CUDA_ERROR_OUT_OF_MEMORY into MemoryError
    backend = pytest.importorskip("asnumpy.backends.cuda.backend")

    class FullDriver:
        def make_current(self, index):
            pass

        def synchronize(self, index):
            pass

        def alloc(self, index, nbytes):
            raise RuntimeError("CUDA_ERROR_OUT_OF_MEMORY: out of memory")

    gc.disable()
    try:
        reference = _fail_holding_a_sentinel(lambda: backend.CudaAllocator(FullDriver(), 0)
                                             .alloc(1 << 20))
        assert reference() is None
    finally:
        gc.enable()


def test_allocation_is_thread_safe(pool):
    baseline = pool.used_bytes()
    errors = []

    def churn(seed):
        rng = np.random.default_rng(seed)
        try:
            for _ in range(200):
                data = rng.random(int(rng.integers(1, 5000)))
                a = ap.asarray(data)
                assert a[-1].item() == data[-1]
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=churn, args=(seed,)) for seed in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert pool.used_bytes() == baseline


def _minor_faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def test_reused_blocks_cost_no_page_faults(pool):
    nbytes = 64 << 20
    first = _allocate(nbytes)
    first.fill(7)
    del first
    before = _minor_faults()
    again = _allocate(nbytes)
    again.fill(9)
    faults = _minor_faults() - before
    assert faults < 100, faults          # a fresh 64 MiB block costs thousands
    assert again[-1].item() == 9


def _thp_mode():
    try:
        with open("/sys/kernel/mm/transparent_hugepage/enabled") as f:
            return re.search(r"\[(\w+)\]", f.read()).group(1)
    except OSError:
        return "never"


@pytest.mark.skipif(_thp_mode() == "never", reason="transparent huge pages are off")
def test_large_blocks_are_eligible_for_transparent_huge_pages(on_cpu, pool):
    from asnumpy.backends.cpu import view

    a = _allocate(32 << 20)
    address = view(a).__array_interface__["data"][0]
    assert address % (2 << 20) == 0
    with open("/proc/self/smaps") as f:
        mappings = re.split(r"\n(?=[0-9a-f]+-[0-9a-f]+ )", f.read())
    for mapping in mappings:
        low, high = (int(x, 16) for x in mapping.split()[0].split("-"))
        if low <= address < high:
            assert re.search(r"THPeligible:\s+1", mapping), mapping
            break
    else:
        pytest.fail("the block's mapping was not found")


def test_host_pool_serves_and_reclaims_large_host_arrays(rng, on_cpu):
    host_pool = ap.get_host_memory_pool()
    before = host_pool.used_bytes()
    data = rng.random((1024, 1024))
    a = ap.asarray(data)
    back = a.get()
    view = back[::3]
    np.testing.assert_array_equal(back, data)
    assert host_pool.used_bytes() >= before + data.nbytes
    del back
    assert host_pool.used_bytes() >= before + data.nbytes   # the view keeps it
    np.testing.assert_array_equal(view, data[::3])
    del view
    assert host_pool.used_bytes() == before
    small = ap.asarray(np.ones(10)).get()
    assert small.flags.owndata                               # small: plain NumPy


# -- the limit covers scratch memory (issue 14, defect 5) --------------------

_SCRATCH_OPS = {
    "median": lambda a, b: ap.median(a),
    "nanmedian": lambda a, b: ap.nanmedian(a),
    "percentile": lambda a, b: ap.percentile(a, 50),
    "quantile": lambda a, b: ap.quantile(a, [0.1, 0.9]),
    "histogram": lambda a, b: ap.histogram(a, 10),
    "argmax of a broadcast view": lambda a, b: ap.argmax(b),
    "unique": lambda a, b: ap.unique(a),
    "partition": lambda a, b: ap.partition(a, 5),
}


@pytest.mark.cpu_default("ops without a cuda kernel run on host copies (the host fallback), "
                         "host memory that no device pool counts")
@pytest.mark.parametrize("name", list(_SCRATCH_OPS))
def test_scratch_memory_counts_against_the_limit(pool, name):
    import tracemalloc

    n = 1 << 20                                            # 8 MiB of float64
    rng = np.random.default_rng(0)
    data = rng.random(n)
    a = ap.asarray(data)
    b = ap.broadcast_to(ap.asarray(data[:1024]), (n // 1024, 1024))   # 8 MiB seen, 8 KiB held
    op = _SCRATCH_OPS[name]
    gc.collect()
    pool.free_all_blocks()
    used = pool.used_bytes()
    # room for the small outputs, not for a copy of the operand
    pool.set_limit(size=used + (4 << 20))
    tracemalloc.start()
    try:
        with pytest.raises(ap.OutOfMemoryError):
            op(a, b)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 2 << 20, f"{name} allocated {peak:,} host bytes before refusing"
    gc.collect()
    assert pool.used_bytes() == used
    # with room for the scratch, the same call works and the pool is usable
    pool.set_limit(size=used + (64 << 20))
    result = op(a, b)
    expected = {"argmax of a broadcast view": lambda: np.argmax(np.broadcast_to(
        data[:1024], (n // 1024, 1024)))}.get(name)
    if expected is not None:
        assert int(result) == expected()
    del result
    gc.collect()
    assert pool.used_bytes() == used
    assert float(ap.sum(ap.ones(1000))) == 1000.0


def test_reservations_count_as_used_and_are_released(pool):
    gc.collect()
    pool.free_all_blocks()
    used = pool.used_bytes()
    pool.set_limit(size=used + (1 << 20))
    with pool.reserve(1 << 19) as reservation:
        assert pool.used_bytes() == used + (1 << 19)
        with pytest.raises(ap.OutOfMemoryError):
            pool.reserve(1 << 20)
        assert reservation.nbytes == 1 << 19
    assert pool.used_bytes() == used
    dropped = pool.reserve(1 << 10)
    del dropped                                              # collected: released too
    assert pool.used_bytes() == used


@pytest.mark.parametrize("reader", ["loadtxt", "genfromtxt", "fromstring"])
def test_text_readers_return_pool_memory(pool, reader):
    text = "\n".join(" ".join(str(i + j) for i in range(50)) for j in range(400))
    read = {"loadtxt": lambda: ap.loadtxt(io.StringIO(text)),
            "genfromtxt": lambda: ap.genfromtxt(io.StringIO(text)),
            "fromstring": lambda: ap.fromstring(text.replace("\n", " "), sep=" ")}[reader]
    gc.collect()
    before = pool.used_bytes()
    result = read()
    assert pool.used_bytes() - before >= result.nbytes        # counted by the pool
    del result
    gc.collect()
    pool.free_all_blocks()
    pool.set_limit(size=pool.total_bytes() + 64 * 1024)        # less than the 160 kB result
    with pytest.raises(ap.OutOfMemoryError):
        read()
