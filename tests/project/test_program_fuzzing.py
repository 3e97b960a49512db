"""Differential program fuzzing: random programs of 3-10 calls, NumPy beside asnumpy.

Each program (tests/_programs.py) is a small register machine: a step calls one
function of the namespace -- creation, ufuncs with broadcasting and Python/NumPy
scalars, reductions, indexing (get and set), manipulation, sorting, set ops,
linalg -- on results of earlier steps, with every dtype, 0-d and empty shapes,
non-contiguous and negative-stride views, on cpu:0..cpu:3.  Every step must
give NumPy's dtype, shape, values (exact for integers and booleans, within a
dtype's tolerance for floats, NaN-aware) or NumPy's exception type; a step with
operands on two devices must raise ValueError ("different devices").

CI runs ``ASNUMPY_FUZZ_PROGRAMS`` programs (default 500); the long run is
``ASNUMPY_FUZZ_PROGRAMS=10000 python -m pytest tests/project/test_program_fuzzing.py``.
Inputs are fresh on each run; a failure prints the shrunk program and the
``@reproduce_failure`` blob that replays it.
"""

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, note, settings

import asnumpy as ap
import _programs
from _programs import Const, Mismatch, ProgramRun, Reg, Source, Step, programs, run_program

PROGRAMS = int(os.environ.get("ASNUMPY_FUZZ_PROGRAMS", "500"))


@settings(max_examples=PROGRAMS, deadline=None, derandomize=False, print_blob=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(programs())
def test_random_programs_match_numpy(program):
    note(repr(program))
    run_program(program)


# -- the harness itself: it must catch what it is meant to catch ---------------


def _program(*steps):
    return ProgramRun([step + (f"r{i}",) for i, step in enumerate(steps)])


def test_a_program_prints_as_the_code_it_runs():
    program = _program(
        (Step("source", (Source(np.arange(3, dtype=np.int8), "reversed", "cpu:1"),), {}),
         "cpu:1"),
        (Step("add+scalar", (Reg(0),), {"scalar_kind": "python", "scalar": 2}), "cpu:1"),
        (Step("getitem", (Reg(1), Const(np.array([0, 2]))), {}), "cpu:1"))
    text = repr(program)
    assert "r0 = asarray([0, 1, 2], dtype=int8, device='cpu:1')[::-1]" in text
    assert "r2 = getitem(r1, array([0, 2], dtype=int64))" in text
    assert run_program(program) == 3


def test_a_value_mismatch_is_reported(monkeypatch):
    program = _program(
        (Step("source", (Source(np.array([1.0, 2.0]), "contiguous", "cpu:0"),), {}), "cpu:0"),
        (Step("negative", (Reg(0),), {}), "cpu:0"))
    monkeypatch.setattr(ap, "negative", ap.positive)
    with pytest.raises(Mismatch, match="values differ"):
        run_program(program)


def test_an_error_type_mismatch_is_reported(monkeypatch):
    program = _program(
        (Step("source", (Source(np.ones((2, 3)), "contiguous", "cpu:0"),), {}), "cpu:0"),
        (Step("sum", (Reg(0),), {"axis": 5}), "cpu:0"))

    def sum_raising_the_wrong_error(*args, **kwargs):
        raise TypeError("wrong")

    monkeypatch.setattr(ap, "sum", sum_raising_the_wrong_error)
    with pytest.raises(Mismatch, match="error types differ"):
        run_program(program)


def test_an_aliasing_difference_is_reported(monkeypatch):
    # asnumpy's transpose returning a copy would hide r0's setitem from r1 (a view in NumPy)
    program = _program(
        (Step("source", (Source(np.zeros((2, 2)), "contiguous", "cpu:2"),), {}), "cpu:2"),
        (Step("transpose", (Reg(0),), {}), "cpu:2"),
        (Step("setitem", (Reg(0), (0, 1), 5.0), {}), "cpu:2"))
    real = ap.transpose
    monkeypatch.setattr(ap, "transpose", lambda a, *args: real(a, *args).copy())
    with pytest.raises(Mismatch, match="final r1"):
        run_program(program)


def test_a_two_device_step_must_raise(monkeypatch):
    program = _program(
        (Step("source", (Source(np.ones(3), "contiguous", "cpu:0"),), {}), "cpu:0"),
        (Step("add", (Reg(0), Reg(0)), {}, mix="cpu:3"), "cpu:0"))
    assert run_program(program) == 2
    monkeypatch.setattr(ap, "add", lambda a, b: a)
    with pytest.raises(Mismatch, match="two-device step"):
        run_program(program)


def test_an_in_place_operator_that_does_not_write_is_reported(monkeypatch):
    program = _program(
        (Step("source", (Source(np.arange(3.0), "contiguous", "cpu:0"),), {}), "cpu:0"),
        (Step("iadd", (Reg(0), Reg(0)), {}), "cpu:0"))
    assert run_program(program) == 2
    monkeypatch.setattr(ap.ndarray, "__iadd__", lambda self, other: self + other)
    with pytest.raises(Mismatch, match="target"):
        run_program(program)


def test_a_memmap_write_lost_when_the_array_is_dropped_is_reported(monkeypatch):
    program = _program(
        (Step("memmap", (Const(np.zeros(2)), "r+", 3), {}), "cpu:0"),
        (Step("setitem", (Reg(0), 0, 42.0), {}), "cpu:0"))
    assert run_program(program) == 2
    real = ap.memmap
    monkeypatch.setattr(ap, "memmap", lambda *args, mode, **kwargs: real(*args, mode="c", **kwargs))
    with pytest.raises(Mismatch, match="memmap file 0 differs"):
        run_program(program)


def test_a_read_only_output_written_by_a_kernel_is_reported(monkeypatch):
    program = _program(
        (Step("source", (Source(np.arange(3.0), "contiguous", "cpu:0"),), {}), "cpu:0"),
        (Step("readonly", (Reg(0),), {}), "cpu:0"),
        (Step("kernel:add", (Reg(0), Reg(0), Reg(0)), {}), "cpu:0"))
    assert run_program(program) == 3
    monkeypatch.setattr(_programs, "_ADD_KERNEL",
                        lambda x, y, z: ap.add(x, y, out=ap.asarray(z, copy=True)))
    with pytest.raises(Mismatch, match="numpy raised ValueError"):
        run_program(program)
