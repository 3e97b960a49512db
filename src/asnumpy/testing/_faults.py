"""Fault injection: make the n-th device allocation fail (SQLite-style tests)."""

from __future__ import annotations

import contextlib

from .._errors import OutOfMemoryError
from ..runtime import memory

__all__ = ["fail_nth_allocation"]


class FaultPlan:
    """Counts pool requests and fails the ``n``-th with :class:`OutOfMemoryError`.

    ``count`` is the number of requests seen so far; ``fired`` says whether
    the failure happened (an operation that made fewer than ``n`` requests
    ran untouched).  Every pool is counted: ``malloc`` and scratch
    ``reserve`` requests of any device, 0-byte requests excepted.
    """

    def __init__(self, n: int):
        if n < 1:
            raise ValueError(f"fail_nth_allocation: n must be >= 1, got {n!r}")
        self.n = n
        self.count = 0
        self.fired = False

    def check(self, pool, nbytes: int) -> None:
        self.count += 1
        if self.count == self.n:
            self.fired = True
            raise OutOfMemoryError(pool.device, nbytes, pool.get_limit(), 0)


@contextlib.contextmanager
def fail_nth_allocation(n: int):
    """Within the block, the ``n``-th pool allocation raises ``OutOfMemoryError``.

    Yields the :class:`FaultPlan`, whose ``fired`` tells whether the
    failure was reached.  Blocks nest: the outer plan is restored on exit.

    Examples
    --------
    >>> with fail_nth_allocation(1) as plan:
    ...     try:
    ...         asnumpy.zeros(10)
    ...     except asnumpy.OutOfMemoryError:
    ...         pass
    >>> plan.fired
    True
    """
    plan = FaultPlan(n)
    previous = memory.set_fault_plan(plan)
    try:
        yield plan
    finally:
        memory.set_fault_plan(previous)
