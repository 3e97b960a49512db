"""``python -m asnumpy.profiler script.py``: the table, the trace, the script's args and status."""

import gzip
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"

SCRIPT = textwrap.dedent("""\
    import sys
    import asnumpy as ap

    print("script args:", sys.argv[1:])
    print("script folder first:", sys.path[0])
    a = ap.arange(1000.0)
    b = ap.sqrt(a) + 1
    print("total:", float(b.sum()))
    if "--exit" in sys.argv:
        sys.exit(int(sys.argv[-1]))
    if "--raise" in sys.argv:
        raise ValueError("the script failed")
""")


def run(tmp_path, *args):
    """The command in ``tmp_path`` with this checkout's package (and the suite's driver)."""
    script = tmp_path / "work.py"
    script.write_text(SCRIPT)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(SRC), *filter(None, [os.environ.get("PYTHONPATH")])])}
    command = [sys.executable, "-m", "asnumpy.profiler", *args]
    command = [str(script) if part == "SCRIPT" else part for part in command]
    return subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300, check=False)


def test_the_table_follows_the_scripts_output_and_the_trace_is_written(tmp_path):
    done = run(tmp_path, "SCRIPT", "first", "--rows", "2")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "script args: ['first', '--rows', '2']" in out     # after the script: its own
    assert f"script folder first: {tmp_path}" in out
    assert out.index("total:") < out.index("asnumpy profile:")
    for name in ("arange", "sqrt", "add"):
        assert name in out
    assert "op " in out and "device total" in out and "calls" in out
    trace = tmp_path / "work.trace.json.gz"
    assert f"trace written to {trace.name}" in out
    events = json.loads(gzip.decompress(trace.read_bytes()))["traceEvents"]
    assert "sqrt" in {e["name"] for e in events}


def test_options_reach_the_table_and_the_trace(tmp_path):
    done = run(tmp_path, "-o", "out.json", "--sort", "name", "--group-by", "shape",
               "--rows", "1", "--sample", "2", "--no-memory", "SCRIPT")
    assert done.returncode == 0, done.stderr
    assert "... " in done.stdout and "more rows (row_limit=1)" in done.stdout
    assert "shapes" in done.stdout and "memory:" not in done.stdout
    trace = json.loads((tmp_path / "out.json").read_text())
    assert trace["otherData"]["sample"] == 2
    assert not (tmp_path / "work.trace.json.gz").exists()


def test_no_trace(tmp_path):
    done = run(tmp_path, "-o", "-", "SCRIPT")
    assert done.returncode == 0, done.stderr
    assert "trace written" not in done.stdout
    assert not list(tmp_path.glob("*.json*"))


def test_a_system_exit_gives_its_status(tmp_path):
    done = run(tmp_path, "-o", "-", "SCRIPT", "--exit", "3")
    assert done.returncode == 3, done.stderr
    assert "asnumpy profile:" in done.stdout and "Traceback" not in done.stderr


def test_an_exception_prints_the_table_then_the_traceback(tmp_path):
    done = run(tmp_path, "SCRIPT", "--raise")
    assert done.returncode == 1
    assert "asnumpy profile:" in done.stdout and "sqrt" in done.stdout
    assert "Traceback" in done.stderr and "ValueError: the script failed" in done.stderr
    assert "runpy" not in done.stderr                  # from the script's own frames on
    assert (tmp_path / "work.trace.json.gz").exists()


def test_a_png_when_asked(tmp_path):
    pytest.importorskip("matplotlib")
    done = run(tmp_path, "-o", "-", "--png", "timeline.png", "SCRIPT")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "timeline.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "picture written to timeline.png" in done.stdout


@pytest.mark.parametrize("args", [["--rows", "0", "SCRIPT"], ["--sort", "speed", "SCRIPT"],
                                  ["missing.py"], []])
def test_usage_errors(tmp_path, args):
    done = run(tmp_path, *args)
    assert done.returncode == 2
    assert "usage: python -m asnumpy.profiler" in done.stderr


def test_no_abbreviated_options(tmp_path):
    done = run(tmp_path, "--samp", "2", "SCRIPT")
    assert done.returncode == 2 and "unrecognized arguments" in done.stderr
