"""Which op something that happened on a thread belongs to (a fresh block, an allocation)."""

from __future__ import annotations

import bisect
import collections

__all__ = ["attribute_to_ops"]


def attribute_to_ops(ops, happenings, after: bool = False) -> list:
    """For each ``(thread, time)`` in ``happenings``, the tag of the op it belongs to (or
    None): the op of ``ops`` (``(thread, start, end, tag)``) running on that thread then,
    else the next one that thread started -- or, ``after``, the last one it had started
    (what the host then waits for follows the op that queued it)."""
    by_thread = collections.defaultdict(list)
    for thread, start, end, tag in ops:
        by_thread[thread].append((start, end, tag))
    starts = {}
    for thread, found in by_thread.items():
        found.sort(key=lambda op: op[0])
        starts[thread] = [op[0] for op in found]
    tags = []
    for thread, at in happenings:
        found = by_thread.get(thread)
        tag = None
        if found:
            index = bisect.bisect_right(starts[thread], at)
            if index and (found[index - 1][1] >= at or after):   # running then, or before
                tag = found[index - 1][2]
            elif index < len(found) and not after:
                tag = found[index][2]
        tags.append(tag)
    return tags
