"""asnumpy is typed: its stubs are current, mypy accepts them, reveals the expected types
in a typed user program and reports the expected errors in a wrong one; the user program
also runs, and each revealed value has at run time the type mypy names; and every stub
function a plain array can call returns at run time the type its stub declares.

The stubs are written by tools/stubgen.py (docs/interop.md, "Typing").
"""

from __future__ import annotations

import importlib.util
import re
import runpy
import sys
import warnings
from pathlib import Path

import numpy
import pytest

import asnumpy

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = Path(__file__).resolve().parent / "typing"
USER, WRONG = PROGRAMS / "user_program.py", PROGRAMS / "wrong_program.py"
REVEAL = re.compile(r"reveal_type\(.*\)\s+#\s*(?P<type>.+?)\s*$")
ERROR = re.compile(r"#\s*error:\s*(?P<code>[\w-]+)\s*$")
NOTE = re.compile(r':(?P<line>\d+): note: Revealed type is "(?P<type>.+)"$')
REPORTED = re.compile(r":(?P<line>\d+): error: .*\[(?P<code>[\w-]+)\]$")


def _stubgen():
    spec = importlib.util.spec_from_file_location("_asnumpy_stubgen", ROOT / "tools" / "stubgen.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _marked(path: Path, pattern) -> dict[int, str]:
    """Line number -> the expected type (or error code) its comment names."""
    marked = {}
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        match = pattern.search(line)
        if match:
            marked[number] = match.group(1)
    return marked


@pytest.fixture(scope="module")
def mypy_output(tmp_path_factory):
    """One mypy run over the stubs and both programs: path name -> its output lines."""
    api = pytest.importorskip("mypy.api")
    stubs = sorted(str(path) for path in _stubgen().generate())
    cache = tmp_path_factory.mktemp("mypy-cache")
    stdout, stderr, _ = api.run([
        "--cache-dir", str(cache), "--config-file", "", "--no-pretty", "--hide-error-context",
        "--no-color-output", "--show-error-codes", *stubs, str(USER), str(WRONG)])
    assert stderr == "", stderr
    lines: dict[str, list[str]] = {}
    for line in stdout.splitlines():
        lines.setdefault(line.partition(":")[0], []).append(line)
    return lines


def _lines_of(output: dict[str, list[str]], path: Path) -> list[str]:
    return [line for name, found in output.items() if Path(name).resolve() == path
            for line in found]


def test_committed_stubs_are_current():
    # regenerate: a public name, signature or type-table change must be followed by
    # `python tools/stubgen.py` (the stubs cannot drift from the code)
    stale = [str(path.relative_to(ROOT)) for path, text in _stubgen().generate().items()
             if not path.exists() or path.read_text() != text]
    assert stale == [], f"run `python tools/stubgen.py`: stale {stale}"


def test_py_typed_marker_and_stubs_are_in_the_package():
    package = Path(asnumpy.__file__).parent
    assert (package / "py.typed").exists()
    assert (package / "__init__.pyi").exists()


def test_stubs_pass_mypy(mypy_output):
    errors = [line for name, lines in mypy_output.items() if name.endswith(".pyi")
              for line in lines]
    assert errors == []


def test_user_program_reveals_the_expected_types(mypy_output):
    expected = _marked(USER, REVEAL)
    assert len(expected) >= 40
    lines = _lines_of(mypy_output, USER)
    revealed = {int(m["line"]): m["type"] for m in map(NOTE.search, lines) if m}
    assert revealed == expected
    assert [line for line in lines if ": error:" in line] == []


def test_wrong_program_gets_the_expected_errors(mypy_output):
    expected = _marked(WRONG, ERROR)
    reported = {int(m["line"]): m["code"] for m in map(REPORTED.search,
                                                         _lines_of(mypy_output, WRONG)) if m}
    assert reported == expected


# -- the revealed types hold at run time


def _split(text: str) -> list[str]:
    """Top-level comma-separated parts of a type's arguments."""
    parts, depth, start = [], 0, 0
    for index, char in enumerate(text):
        depth += char == "["
        depth -= char == "]"
        if char == "," and depth == 0:
            parts.append(text[start:index].strip())
            start = index + 1
    return parts + [text[start:].strip()]


def _has_type(value, text: str) -> bool:
    """Whether `value` is of the type mypy writes as `text` (the forms the program uses)."""
    name, _, arguments = text.partition("[")
    arguments = _split(arguments[:-1]) if arguments else []
    if name == "Any":
        return True
    if name == "None":
        return value is None
    if name in ("tuple", "list"):
        if type(value) is not getattr(__builtins__, name, None) and \
                not isinstance(value, tuple if name == "tuple" else list):
            return False
        if arguments[-1:] == ["..."] or name == "list":
            return all(_has_type(item, arguments[0]) for item in value)
        return len(value) == len(arguments) and all(map(_has_type, value, arguments))
    if "." not in name:
        return type(value) is getattr(__import__("builtins"), name)
    module, _, attribute = name.rpartition(".")
    return isinstance(value, getattr(importlib.import_module(module), attribute))


@pytest.mark.parametrize(("value", "text", "holds"), [
    (asnumpy.zeros(2), "asnumpy.ndarray", True), (numpy.zeros(2), "asnumpy.ndarray", False),
    ((asnumpy.zeros(1),) * 3, "tuple[asnumpy.ndarray, ...]", True),
    ((asnumpy.zeros(1), 1), "tuple[asnumpy.ndarray, asnumpy.ndarray]", False),
    ([1, 2], "list[int]", True), (True, "int", False), (None, "None", True),
])
def test_runtime_type_check(value, text, holds):
    assert _has_type(value, text) is holds


def test_user_program_runs_and_its_values_have_the_revealed_types():
    expected = _marked(USER, REVEAL)
    checked = []

    def reveal_type(value):
        line = sys._getframe(1).f_lineno
        assert _has_type(value, expected[line]), (line, expected[line], type(value))
        checked.append(line)
        return value

    runpy.run_path(str(USER), init_globals={"reveal_type": reveal_type}, run_name="__typed__")
    assert sorted(checked) == sorted(expected)


# -- the stubs' return types hold at run time, for every function a plain array can call

STUB_FUNCTION = re.compile(r"^(?P<indent>    )?def (?P<name>\w+)\((?P<params>[^)]*)\) -> "
                           r"(?P<returns>[^:]+): \.\.\.", re.M)
CHECKED_RETURNS = re.compile(r"^(ndarray|None|builtins\.bool|int|float|str|tuple\[.*\]|"
                             r"list\[.*\]|numpy\.ndarray\[Any, Any\])$")


def _runtime_type(text: str) -> str:
    """A stub's return annotation as mypy reveals it (what _has_type reads)."""
    text = text.replace("builtins.", "")
    return re.sub(r"(?<![\w.])ndarray\b", "asnumpy.ndarray", text)


def _calls(module_name: str, array_of):
    """(name, callable, its arguments, expected type) for each function of the stub of
    `module_name` (and each ndarray method, for asnumpy) whose required parameters are
    at most two arrays, called with `array_of()`."""
    stub = _stubgen().stub_path(module_name).read_text()
    module = importlib.import_module(module_name)
    in_ndarray = False
    for line in stub.splitlines():
        if line.startswith("class "):
            in_ndarray = line.startswith("class ndarray")
        match = STUB_FUNCTION.match(line)
        if not match or not CHECKED_RETURNS.match(match["returns"]):
            continue
        if match["indent"] and not (in_ndarray and not match["name"].startswith("_")):
            continue
        parameters = [p.strip() for p in match["params"].split(",")]
        parameters = [p for p in parameters if p and p not in ("/", "*", "self")]
        required = [p for p in parameters if "=" not in p and not p.startswith("*")]
        if len(required) > 2 or not all(p.endswith(("ArrayLike", "Sequence[ArrayLike]"))
                                        for p in required):
            continue
        if match["indent"]:
            yield (f"ndarray.{match['name']}", lambda *a, _n=match["name"]:
                   getattr(a[0], _n)(*a[1:]), [array_of(), *(array_of() for _ in required)],
                   match["returns"])
        elif required:
            arguments = [[array_of()] * 2 if p.endswith("Sequence[ArrayLike]") else array_of()
                         for p in required]
            yield match["name"], getattr(module, match["name"]), arguments, match["returns"]


@pytest.mark.parametrize(("module_name", "shape"), [
    ("asnumpy", (2, 3)), ("asnumpy.linalg", (3, 3)), ("asnumpy.fft", (2, 4)),
    ("asnumpy.emath", (2, 3))])
def test_stub_return_types_hold_at_run_time(module_name, shape):
    def array_of():
        values = asnumpy.arange(1.0, 1.0 + numpy.prod(shape)).reshape(shape)
        return values + 4 * asnumpy.eye(*shape) if module_name == "asnumpy.linalg" else values

    checked, wrong = 0, []
    with numpy.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, function, arguments, returns in _calls(module_name, array_of):
            try:
                result = function(*arguments)
            except Exception:                   # noqa: BLE001 (not a call these arguments suit)
                continue
            checked += 1
            if not _has_type(result, _runtime_type(returns)):
                wrong.append((name, returns, type(result).__name__))
    assert wrong == []
    assert checked >= {"asnumpy": 150, "asnumpy.linalg": 15, "asnumpy.fft": 10,
                       "asnumpy.emath": 5}[module_name]

