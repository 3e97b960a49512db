"""The Array API standard's conformance suite (data-apis/array-api-tests) run against
asnumpy's Array API namespace, ``asnumpy.array_api`` (what ``a.__array_namespace__()``
returns), at the version it declares (2025.12).

The suite is not vendored: an unmodified copy is looked for in
``$ASNUMPY_ARRAY_API_TESTS`` or beside the checkout (``../shared/array-api-tests``,
where this project's CI lays it), and the test is skipped when none is found.
It runs in a subprocess, without an xfails file, and every test must pass or be
skipped by the suite itself. The counts are printed, so ``pytest -s`` or the
failure message shows them.
"""

import json
import os
import pathlib
import subprocess
import sys

import pytest

# the namespace the suite tests (the package's own module differs where NumPy 2.4 does)
NAMESPACE = "asnumpy.array_api"
_ROOT = pathlib.Path(__file__).resolve().parents[2]


def _suite() -> pathlib.Path | None:
    candidates = [os.environ.get("ASNUMPY_ARRAY_API_TESTS"),
                  _ROOT.parent / "shared" / "array-api-tests"]
    for candidate in candidates:
        if candidate and (pathlib.Path(candidate) / "array_api_tests").is_dir():
            return pathlib.Path(candidate)
    return None


def _worker_options() -> list[str]:
    """Both cores when pytest-xdist is there (the suite takes about a minute on two)."""
    try:
        import xdist  # noqa: F401
    except ImportError:
        return []
    return ["-n", str(min(os.cpu_count() or 1, 4))]


@pytest.mark.conformance
def test_array_api_conformance_suite_passes(tmp_path):
    suite = _suite()
    if suite is None:
        pytest.skip("no copy of array-api-tests ($ASNUMPY_ARRAY_API_TESTS or ../shared)")
    for module in ("ndindex", "pytest_jsonreport", "hypothesis"):
        pytest.importorskip(module)
    report = tmp_path / "report.json"
    # a fresh example database each run: the same examples in CI as here, and
    # nothing written into the (read-only) copy of the suite
    env = dict(os.environ, ARRAY_API_TESTS_MODULE=NAMESPACE,
               HYPOTHESIS_STORAGE_DIRECTORY=str(tmp_path / "hypothesis"))
    env.pop("PYTEST_ADDOPTS", None)
    command = [sys.executable, "-m", "pytest", "array_api_tests", "-q", "-p", "no:cacheprovider",
               "-p", "no:benchmark",
               "--max-examples=20", "--hypothesis-seed=0", "--json-report",
               f"--json-report-file={report}", *_worker_options()]
    finished = subprocess.run(command, cwd=suite, env=env, capture_output=True, text=True)
    assert report.exists(), finished.stdout[-3000:] + finished.stderr[-3000:]
    summary = json.loads(report.read_text())["summary"]
    passed, failed = summary.get("passed", 0), summary.get("failed", 0)
    errors = summary.get("error", 0)
    failures = [line for line in finished.stdout.splitlines()
                if line.startswith(("FAILED", "ERROR"))]
    counts = (f"array-api-tests: {passed} passed, {failed} failed, {errors} errors, "
              f"{summary.get('skipped', 0)} skipped")
    print(counts)
    assert passed > 0 and failed == errors == 0, counts + "\n" + "\n".join(failures)
