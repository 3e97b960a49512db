"""Mistakes asnumpy's stubs catch: each line marked ``# error: CODE`` must get mypy's
error CODE there, and no other line an error (tests/project/test_typing.py)."""

from __future__ import annotations

import asnumpy as ap

a = ap.zeros((2, 3))
ap.zeros("x")  # error: arg-type
a.sum(axis="x")  # error: arg-type
ap.mean(a, keepdims="yes")  # error: arg-type
ap.add(a)  # error: call-arg
a.no_such_method()  # error: attr-defined
n: int = ap.ones(3)  # error: assignment
ap.linalg.norm(a, axis=1.5)  # error: arg-type
ap.asarray([1, 2], device=1.5)  # error: arg-type
a.reshape(2, 3, order=1)  # error: arg-type
ok = ap.linalg.norm(a, axis=(0, 1))
