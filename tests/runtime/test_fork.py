"""Fork safety: a child made by ``os.fork`` uses asnumpy without hanging.

A forked child inherits the parent's memory but only the forking thread:
stream workers and the cpu thread pool are gone, and a lock another thread
held stays held.  Each child here runs under a deadline: the parent reads
its answer through a pipe, and a child still running at the deadline is
killed and the test fails ("hung") -- a hang never hangs the suite.  Every
result computed in a child is compared with NumPy's.

Python 3.12+ warns (DeprecationWarning) when a process with threads forks;
the forks here ignore that warning.  cpu work names ``cpu:0``, so the tests
mean the same when the session's default device is cuda.
"""

import contextlib
import gc
import multiprocessing
import os
import pickle
import select
import signal
import subprocess
import sys
import threading
import time
import traceback
import warnings

import numpy as np
import pytest
from _cuda_host import requires_compiler

import asnumpy as ap
from asnumpy._core._pending import transfer_stream
from asnumpy.runtime import _fork, _state

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="this platform has no os.fork")

CHILD_DEADLINE_S = 60.0     # generous: only a hang should reach it
CPU = "cpu:0"


def _fork_quietly():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)   # 3.12+: fork with threads
        return os.fork()


def in_child(fn, *args):
    """``fn(*args)`` in a forked child; its return value, or the test fails with its error.

    The child is killed, and the test fails, when it has not answered by
    :data:`CHILD_DEADLINE_S`.
    """
    read, write = os.pipe()
    pid = _fork_quietly()
    if pid == 0:                                     # the child: answer, then leave at once
        try:
            os.close(read)
            try:
                answer = ("ok", fn(*args))
            except BaseException:                    # noqa: BLE001 (reported by the parent)
                answer = ("error", traceback.format_exc())
            with os.fdopen(write, "wb") as pipe:
                pipe.write(pickle.dumps(answer))
        finally:
            os._exit(0)
    os.close(write)
    chunks, deadline = [], time.monotonic() + CHILD_DEADLINE_S
    try:
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                os.kill(pid, signal.SIGKILL)
                pytest.fail(f"the forked child hung (killed after {CHILD_DEADLINE_S:.0f} s)")
            if select.select([read], [], [], remaining)[0]:
                chunk = os.read(read, 1 << 16)
                if not chunk:
                    break
                chunks.append(chunk)
    finally:
        os.close(read)
        os.waitpid(pid, 0)
    if not chunks:
        pytest.fail("the forked child died without answering")
    status, value = pickle.loads(b"".join(chunks))
    if status == "error":
        pytest.fail(f"the forked child raised:\n{value}")
    return value


@contextlib.contextmanager
def held_by_another_thread(resource):
    """``with resource:`` entered on another thread, and left there after this block."""
    entered, leave = threading.Event(), threading.Event()

    def hold():
        with resource:
            entered.set()
            leave.wait(2 * CHILD_DEADLINE_S)

    thread = threading.Thread(target=hold)
    thread.start()
    assert entered.wait(30)
    try:
        yield
    finally:
        leave.set()
        thread.join()


def _stream_work(stream, host):
    """Work on ``stream`` and the default stream of cpu:0; NumPy arrays back."""
    with stream:
        a = ap.asarray(host, device=CPU)
        b = ap.sin(a) * 2 + a
    stream.synchronize()
    return ap.asnumpy(b), ap.asnumpy(ap.cumsum(a))


def _expected(host):
    return np.sin(host) * 2 + host, np.cumsum(host)


def _assert_results(got, host):
    for value, expected in zip(got, _expected(host)):
        np.testing.assert_allclose(value, expected, rtol=1e-12)


# -- user streams ----------------------------------------------------------------------


def test_an_inherited_stream_works_in_the_child():
    host = np.linspace(-3, 3, 1001)
    stream = ap.Stream(CPU)
    _assert_results(_stream_work(stream, host), host)       # its worker runs in the parent

    def child():
        results = _stream_work(stream, host)
        stream.synchronize()
        return results, stream.query()

    results, idle = in_child(child)
    _assert_results(results, host)
    assert idle
    _assert_results(_stream_work(stream, host), host)       # the parent's stream still works
    stream.close()


def test_async_transfers_in_ten_children():
    host = np.arange(12345, dtype=np.float64)
    np.testing.assert_array_equal(ap.asnumpy(ap.asarray(host, device=CPU, stream="async")), host)

    def child():
        a = ap.asarray(host, device=CPU, stream="async")
        return ap.asnumpy(a + 1)

    for _ in range(10):
        np.testing.assert_array_equal(in_child(child), host + 1)


def test_work_pending_at_the_fork_stays_the_parents():
    host = np.arange(100.0)
    stream = ap.Stream(CPU)
    gate, ran = threading.Event(), []
    done = stream.record()
    stream.synchronize()                     # an event completed before the fork
    stream.launch(gate.wait)
    stream.launch(ran.append, "parent work")
    stream.launch(lambda: 1 / 0)             # an error kept for the parent's synchronize()
    pending = stream.record()                # an event whose point the fork comes before
    try:
        def child():
            assert done.query()
            done.synchronize()
            stream.synchronize()             # the parent's work and error are not the child's
            assert stream.query() and ran == []
            assert not pending.query()
            raised = []
            for wait in (pending.synchronize, lambda: stream.wait_event(pending),
                         lambda: ap.Device(CPU).default_stream.wait_event(pending)):
                with pytest.raises(RuntimeError, match=r"before os\.fork\(\)") as info:
                    wait()
                raised.append(str(info.value))
            return _stream_work(stream, host), ran, raised

        results, child_ran, raised = in_child(child)
        _assert_results(results, host)
        assert child_ran == [] and len(raised) == 3
        assert not pending.query()           # the parent's stream is still held by the gate
    finally:
        gate.set()
    with pytest.raises(ZeroDivisionError):
        stream.synchronize()
    assert ran == ["parent work"] and pending.query()
    stream.close()


def test_an_async_copy_pending_at_the_fork_raises_in_the_child():
    host = np.arange(5000, dtype=np.int64)
    gate = threading.Event()
    transfer_stream(ap.Device(CPU)).launch(gate.wait)
    try:
        a = ap.asarray(host, device=CPU, stream="async")

        def child():
            with pytest.raises(RuntimeError, match="had not finished when this process was forked"):
                ap.asnumpy(a)
            return ap.asnumpy(ap.asarray(host, device=CPU, stream="async") * 3)

        np.testing.assert_array_equal(in_child(child), host * 3)
    finally:
        gate.set()
    np.testing.assert_array_equal(ap.asnumpy(a), host)      # the parent's copy completed


def test_errors_of_the_parents_dropped_streams_stay_the_parents():
    stream = ap.Stream(CPU)
    stream.launch(lambda: 1 / 0)
    thread = stream._worker.thread
    del stream                              # collected: its error goes to the device
    gc.collect()
    thread.join(30)
    assert not thread.is_alive()

    def child():
        ap.synchronize(CPU)
        return True

    assert in_child(child)
    with pytest.raises(ZeroDivisionError):
        ap.synchronize(CPU)                 # raised once, in the parent


def test_a_closed_stream_stays_closed_in_the_child():
    stream = ap.Stream(CPU)
    stream.launch(int)
    stream.close()

    def child():
        stream.synchronize()
        stream.close()
        with pytest.raises(RuntimeError, match="closed"):
            stream.launch(int)
        return True

    assert in_child(child)


def test_stream_blocks_open_on_other_threads_are_not_counted_in_the_child():
    stream = ap.Stream(CPU)

    def child():
        outside = _state.open_stream_blocks[0]
        with stream:
            inside = _state.open_stream_blocks[0]
        return outside, inside, ap.get_current_stream(CPU).is_default

    with held_by_another_thread(stream):
        assert in_child(child) == (0, 1, True)
    stream.close()


# -- multiprocessing's fork start method ------------------------------------------------

_INHERITED: dict = {}        # set before the pool forks: what its workers inherit


def _pool_task(seed):
    host = np.random.default_rng(seed).standard_normal(2000)
    a = ap.asarray(host, device=CPU, stream="async")
    with ap.Stream(CPU) as own:
        b = ap.exp(a) - a
    own.synchronize()
    out = [ap.asnumpy(b), ap.asnumpy(ap.sort(a))]
    inherited = _INHERITED.get("stream")
    if inherited is not None:
        out += list(_stream_work(inherited, host))
    return seed, out


@pytest.mark.parametrize("streams_in_parent", [False, True], ids=["plain", "streams_in_parent"])
def test_a_fork_pool_of_two(streams_in_parent):
    if streams_in_parent:
        stream = _INHERITED["stream"] = ap.Stream(CPU)
        host = np.arange(64.0)
        _assert_results(_stream_work(stream, host), host)
        np.testing.assert_array_equal(
            ap.asnumpy(ap.asarray(host, device=CPU, stream="async")), host)
    context = multiprocessing.get_context("fork")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            pool = context.Pool(2)
        try:
            answers = pool.map_async(_pool_task, range(6)).get(timeout=CHILD_DEADLINE_S)
        except multiprocessing.TimeoutError:
            pytest.fail(f"a fork-pool worker hung (no answer in {CHILD_DEADLINE_S:.0f} s)")
        finally:
            pool.terminate()
            pool.join()
    finally:
        _INHERITED.clear()
    assert [seed for seed, _ in answers] == list(range(6))
    for seed, out in answers:
        host = np.random.default_rng(seed).standard_normal(2000)
        np.testing.assert_allclose(out[0], np.exp(host) - host, rtol=1e-12)
        np.testing.assert_array_equal(out[1], np.sort(host))
        if streams_in_parent:
            _assert_results(out[2:], host)
        else:
            assert len(out) == 2


# -- the cpu thread pool and the memory pool's lock -------------------------------------


@pytest.fixture
def four_cpu_threads():
    before = ap.runtime.cpu_threads()
    ap.runtime.set_cpu_threads(4)
    yield
    ap.runtime.set_cpu_threads(before)


def test_the_cpu_thread_pool_after_use_in_the_parent(four_cpu_threads):
    from asnumpy.backends.cpu import parallel

    host = np.linspace(0, 100, 3_000_000)              # 24 MB: split across threads
    a = ap.asarray(host, device=CPU)
    np.testing.assert_allclose(ap.asnumpy(ap.sqrt(a)), np.sqrt(host))
    assert parallel._spawned > 0                        # the parent's pool has workers
    stop = threading.Event()

    def busy():                                         # the pool in use while forking
        while not stop.is_set():
            ap.sqrt(a)

    thread = threading.Thread(target=busy)
    thread.start()
    try:
        def child():
            return ap.asnumpy(ap.sqrt(a) + a), float(ap.sum(a))

        for _ in range(3):
            root, total = in_child(child)
            np.testing.assert_allclose(root, np.sqrt(host) + host)
            assert total == pytest.approx(host.sum(), rel=1e-12)
    finally:
        stop.set()
        thread.join()


def test_the_memory_pool_lock_held_by_another_thread_at_the_fork():
    pool = ap.Device(CPU).memory_pool

    def child():
        a = ap.zeros(10_000, dtype=np.int64, device=CPU)     # from the pool, under its lock
        a += ap.arange(10_000, device=CPU) * 2
        return ap.asnumpy(a), pool.used_bytes() >= a.nbytes

    # the fork waits for the lock at most _fork.HOLD_S, then goes on; the child's is fresh
    with held_by_another_thread(pool._lock):
        values, counted = in_child(child)
    np.testing.assert_array_equal(values, np.arange(10_000) * 2)
    assert counted


@requires_compiler
def test_a_compile_under_way_at_the_fork_does_not_block_the_child():
    from asnumpy.backends.cpu import compiler as _toolchain

    source = 'extern "C" int asnumpy_fork_probe(void) { return 7; }\n'
    key_lock = _toolchain._key_locks.setdefault((source, ()), threading.Lock())

    def child():
        return _toolchain.load_library(source).asnumpy_fork_probe()

    try:
        with held_by_another_thread(key_lock):      # as a thread compiling this source holds it
            assert in_child(child) == 7
    finally:
        _toolchain._key_locks.pop((source, ()), None)


def test_the_fork_hooks_hold_registered_locks_across_the_fork():
    class Owner:
        def __init__(self):
            self._lock = threading.Lock()

    owner, seen, registered = Owner(), [], len(_fork._handlers)
    # ``before`` handlers run last-registered first: this one sees the lock already held
    _fork.register(before=lambda: seen.append(owner._lock.locked()))
    _fork.register_locks(lambda: (owner,))
    lock_before = owner._lock

    def child():
        return owner._lock is not lock_before, owner._lock.locked(), _fork.generation()

    try:
        fresh, locked, generation = in_child(child)
    finally:
        del _fork._handlers[registered:]
    assert fresh and not locked and generation == _fork.generation() + 1
    assert seen == [True] and owner._lock is lock_before and not lock_before.locked()


# -- cuda: CUDA's rule -------------------------------------------------------------------


def test_cuda_in_a_forked_child_raises_a_clear_error(cuda):
    host = np.arange(10.0)
    a = ap.asarray(host, device=cuda)
    np.testing.assert_array_equal(ap.asnumpy(a + 1), host + 1)   # cuda initialized here

    def child():
        messages = []
        for use in (lambda: ap.asarray(host, device=cuda), lambda: a + 1,
                    lambda: ap.asnumpy(a), lambda: ap.Stream(cuda)):
            with pytest.raises(RuntimeError) as info:
                use()
            messages.append(str(info.value))
        return messages, ap.asnumpy(ap.asarray(host, device=CPU) * 2)

    messages, cpu_result = in_child(child)
    for message in messages:
        assert "cannot use cuda:0 in a forked child process" in message
        assert "'spawn' start method" in message
    np.testing.assert_array_equal(cpu_result, host * 2)          # cpu still works there
    np.testing.assert_array_equal(ap.asnumpy(a * 3), host * 3)   # and the parent's cuda


def test_a_parent_that_never_used_cuda_forks_children_that_may(cuda):
    # A fresh interpreter: this one's cuda is initialized by the fixture.
    program = (
        "import os, numpy as np, asnumpy as ap\n"
        "ap.asnumpy(ap.arange(3, device='cpu:0') + 1)\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    ok = (ap.asnumpy(ap.asarray(np.arange(4.0), device='cuda:0') * 2)"
        " == np.arange(4.0) * 2).all()\n"
        "    os._exit(0 if ok else 3)\n"
        "_, status = os.waitpid(pid, 0)\n"
        "raise SystemExit(os.waitstatus_to_exitcode(status))\n")
    # the fixture names the emulated driver in the environment, when it is the one
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (os.path.dirname(os.path.dirname(os.path.abspath(__file__))),  # tests/
                    os.environ.get("PYTHONPATH")) if p))
    done = subprocess.run([sys.executable, "-W", "ignore::DeprecationWarning", "-c", program],
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
