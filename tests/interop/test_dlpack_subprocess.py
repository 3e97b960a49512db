"""DLPack exchanges that can crash the interpreter, each run in a subprocess.

A layout bug in an exported or imported capsule (strides in bytes instead of
elements, a wrong offset for a negative stride) makes the consumer read far
outside the buffer: a segmentation fault would take the whole test run down.
Each exchange here runs with ``sys.executable -c`` instead, so such a bug fails
one test, with the child's output and stderr in the report.
"""

import os
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.usefixtures("on_cpu")

_PRELUDE = """
import numpy as np
import asnumpy as ap
LAYOUTS = {
    "C": lambda a: a,
    "F": lambda a: a.T,
    "strided": lambda a: a[:, ::2],
    "strided-rows": lambda a: a[::3, 1::2],
    "negative": lambda a: a[::-1, ::-2],
    "0-d": lambda a: a[1, 2, ...],
    "empty": lambda a: a[:0],
    "empty-strided": lambda a: a[2:2, ::3],
    "3-d": lambda a: a.reshape(2, 4, 9)[:, ::-1, 1::3],
}
def sample(dtype):
    return (np.arange(72).reshape(8, 9) * 3 - 20).astype(dtype)
def same(got, want):
    got = np.asarray(got)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert np.array_equal(got, want), (got, want)
"""


def run_snippet(code: str, timeout: float = 60) -> str:
    """Run ``code`` (after the prelude) in a fresh interpreter on cpu:0; it must exit 0."""
    env = dict(os.environ, ASNUMPY_DEVICE="cpu:0")
    env["PYTHONPATH"] = os.pathsep.join(p for p in [*sys.path] if p)
    source = _PRELUDE + textwrap.dedent(code) + "\nprint('OK')\n"
    done = subprocess.run([sys.executable, "-c", source], capture_output=True, text=True,
                          timeout=timeout, env=env)
    if done.returncode != 0 or "OK" not in done.stdout:
        pytest.fail(f"child exited with {done.returncode}\n--- stdout\n{done.stdout}"
                    f"\n--- stderr\n{done.stderr}", pytrace=False)
    return done.stdout


DTYPES = ["float64", "int8", "int32", "complex64", "uint16"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_numpy_imports_every_asnumpy_layout(dtype):
    run_snippet(f"""
        for name, view in LAYOUTS.items():
            host = sample("{dtype}")
            got = np.from_dlpack(view(ap.asarray(host)))
            same(got, view(host))
            assert got.strides == view(host).strides or got.size <= 1, (name, got.strides)
    """)


@pytest.mark.parametrize("dtype", DTYPES)
def test_asnumpy_imports_every_numpy_layout(dtype):
    run_snippet(f"""
        for name, view in LAYOUTS.items():
            host = view(sample("{dtype}"))
            got = ap.from_dlpack(host)
            assert got.shape == host.shape, (name, got.shape)
            assert got.strides == host.strides or host.size == 0, (name, got.strides)
            same(ap.asnumpy(got), host)
            same(ap.asnumpy(got * 1), host * 1)        # a kernel reads it with its strides
    """)


def test_round_trips_through_numpy_of_every_layout():
    run_snippet("""
        for name, view in LAYOUTS.items():
            host = sample("float32")
            back = ap.from_dlpack(np.from_dlpack(view(ap.asarray(host))))
            same(ap.asnumpy(back), view(host))
            again = np.from_dlpack(ap.from_dlpack(view(host)))
            same(again, view(host))
    """)


def test_torch_exchanges_of_every_layout_torch_accepts():
    pytest.importorskip("torch")
    run_snippet("""
        import torch
        for name, view in LAYOUTS.items():
            if name == "negative" or name == "3-d":   # torch refuses negative strides
                continue
            host = sample("float64")
            t = torch.from_dlpack(view(ap.asarray(host)))
            same(t.numpy(), view(host))
            assert tuple(t.stride()) == tuple(s // 8 for s in view(host).strides) or t.numel() <= 1
            tt = torch.from_numpy(sample("int64"))
            for tv in (tt, tt.T, tt[:, ::2], tt[1, 2], tt[:0], tt[::3, 1::2]):
                got = ap.from_dlpack(tv)
                same(ap.asnumpy(got), tv.numpy())
                same(ap.asnumpy(got + 0), tv.numpy() + 0)
    """)


def test_writes_through_strided_exports_land_in_place():
    run_snippet("""
        host = sample("int32")
        d = ap.asarray(host)
        view = np.from_dlpack(d[::2, ::-3])
        if view.flags.writeable:
            view[...] = -7
            want = host.copy(); want[::2, ::-3] = -7
            same(ap.asnumpy(d), want)
    """)
