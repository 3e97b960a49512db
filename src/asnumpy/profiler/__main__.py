"""Profile a whole script: ``python -m asnumpy.profiler [options] script.py [args ...]``.

The script runs as ``__main__`` (``sys.argv`` is ``[script.py, args ...]``,
``sys.path[0]`` its folder) with a :class:`asnumpy.profiler.profile` active
from start to end.  Afterwards, on stdout after the script's own output, the
per-op table; then the Chrome trace is written (open it in
https://ui.perfetto.dev) and, when asked, a PNG of the timeline.

Options::

    -o TRACE        where the trace goes (default: <script stem>.trace.json.gz here;
                    a name ending in .gz is gzipped; "-": no trace)
    --sort KEY      the table's order (device_total, host_total, calls, bytes, ...)
    --group-by G    the table's rows: op, shape, site or range
    --rows N        at most N rows
    --png FILE      also draw the timeline and memory into FILE (needs matplotlib)
    --no-memory     do not record the memory pools' blocks
    --sample N      keep one op in N of each name (and one memory counter in N)
                    in the trace

Everything after the script's path is the script's own.  The command exits
with the script's status: a ``SystemExit``'s code, or 1 (with the traceback)
when the script raised.
"""

from __future__ import annotations

import argparse
import os
import runpy
import sys
import traceback
from pathlib import Path

from ._records import GROUPINGS, SORT_KEYS
from ._session import profile


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m asnumpy.profiler", allow_abbrev=False,
        description="Run a Python script with asnumpy's profiler active; print the per-op "
                    "table and write a Chrome trace (Perfetto).")
    parser.add_argument("-o", "--output", metavar="TRACE",
                        help='the trace file (default: <script stem>.trace.json.gz; "-": none)')
    parser.add_argument("--sort", default="device_total", choices=SORT_KEYS, metavar="KEY",
                        help=f"the table's order: {', '.join(SORT_KEYS)}")
    parser.add_argument("--group-by", default="op", choices=tuple(GROUPINGS), metavar="G",
                        help=f"the table's rows: {', '.join(GROUPINGS)}")
    parser.add_argument("--rows", type=_positive, metavar="N", help="at most N rows")
    parser.add_argument("--png", metavar="FILE", help="draw the timeline into a PNG")
    parser.add_argument("--no-memory", action="store_true",
                        help="do not record the memory pools' blocks")
    parser.add_argument("--sample", type=_positive, default=1, metavar="N",
                        help="keep one op in N of each name in the trace")
    parser.add_argument("script", help="the Python script to run")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="the script's arguments")
    return parser


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}")
    return value


def _exit_status(exc: SystemExit) -> int:
    """The status Python itself gives ``SystemExit(code)`` (a message: printed, status 1)."""
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def _run(script: str, args: list) -> tuple:
    """Run ``script`` as ``__main__``; return (exit status, the exception it raised or None).

    ``sys.argv`` and ``sys.path[0]`` are the script's while it runs and put back after.
    """
    saved_argv, saved_path0 = sys.argv, sys.path[0]
    sys.argv = [script, *args]
    sys.path[0] = os.path.dirname(os.path.abspath(script))
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as exc:
        return _exit_status(exc), None
    except BaseException as exc:           # KeyboardInterrupt too: the table is still worth it
        return 1, exc
    finally:
        sys.argv, sys.path[0] = saved_argv, saved_path0
    return 0, None


def _print_traceback(exc: BaseException, script: str) -> None:
    """The traceback from the script's own frames on (this module's and runpy's left out)."""
    tb, target = exc.__traceback__, os.path.abspath(script)
    while tb is not None and os.path.abspath(tb.tb_frame.f_code.co_filename) != target:
        tb = tb.tb_next
    traceback.print_exception(type(exc), exc, tb or exc.__traceback__, file=sys.stderr)


def main(argv=None) -> int:
    """The command (see the module's docstring); returns the exit status."""
    options = _parser().parse_args(argv)
    script = options.script
    if not os.path.isfile(script):
        _parser().error(f"can't open file {script!r}: no such file")
    prof = profile(memory=not options.no_memory)
    prof.start()
    try:
        status, raised = _run(script, options.args)
    finally:
        prof.stop()
    sys.stdout.flush()
    print(prof.table(sort_by=options.sort, group_by=options.group_by, row_limit=options.rows))
    if raised is not None:
        sys.stdout.flush()
        _print_traceback(raised, script)
    trace = options.output or f"{Path(script).stem}.trace.json.gz"
    if trace != "-":
        written = prof.export_chrome_trace(trace, sample=options.sample)
        print(f"trace written to {written} (open it in https://ui.perfetto.dev)")
    if options.png:
        try:
            print(f"picture written to {prof.plot(options.png)}")
        except ModuleNotFoundError as exc:          # matplotlib missing: say so, keep the rest
            print(f"asnumpy.profiler: no picture: {exc}", file=sys.stderr)
            status = status or 1
    return status


if __name__ == "__main__":
    sys.exit(main())
