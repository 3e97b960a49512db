"""The errors of compiling generated C++, and how their messages show the source.

Both back ends' compilers raise :class:`CompileError` (the host C++ compiler
for cpu programs, NVRTC's check for cuda ones), so code above them catches
one class whatever the device.
"""

from __future__ import annotations

__all__ = ["SOURCE_MARK", "CompileError", "CompilerNotFoundError", "numbered_source"]

SOURCE_MARK = '#line 1 "'                       # where the part worth showing starts


class CompileError(RuntimeError):
    """The C++ compiler rejected a kernel: the message holds its output and the source."""


class CompilerNotFoundError(RuntimeError):
    """No C++ compiler was found for cpu kernels."""


def numbered_source(source: str) -> str:
    """``source`` from its last ``#line 1 "..."`` mark on, each line numbered from 1."""
    start = source.rfind(SOURCE_MARK)
    shown = source[source.index("\n", start) + 1:] if start >= 0 else source
    lines = shown.splitlines()
    width = len(str(len(lines)))
    return "\n".join(f"{n:>{width}} | {line}" for n, line in enumerate(lines, 1))
