"""Everyday SciPy calls on asnumpy cpu arrays with ``SCIPY_ARRAY_API=1``.

``tools/scipy_calls.py`` lists the calls (special, ndimage, signal, stats,
linalg, interpolate, optimize, spatial, cluster, integrate, fft);
``tools/scipy_table.py`` runs them in a subprocess with ``SCIPY_ARRAY_API=1``
on NumPy arrays and on asnumpy arrays (and CPU torch tensors as the yardstick
of what SciPy returns for another Array API library) and renders the table in
docs/interop.md.  Here: every call works (NumPy's shapes, dtypes and values),
on float32 inputs too, and on cpu:1 arrays inside ``with ap.Device("cpu:1")``;
it returns asnumpy arrays wherever SciPy returns a torch caller torch tensors;
the table in the docs and the README's counts are what the script measures now.
"""

import pathlib
import sys

import pytest

pytest.importorskip("scipy")
pytest.importorskip("array_api_compat")

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tools"))
import scipy_calls  # noqa: E402
import scipy_table  # noqa: E402

pytestmark = pytest.mark.cpu_default("the subprocess measures the cpu device whatever "
                                     "ASNUMPY_DEVICE says")


@pytest.fixture(scope="module")
def rows():
    return scipy_table.measure()


def test_the_list_is_long_enough():
    assert len(scipy_calls.CALLS) >= 60
    assert len({call for _, call, _ in scipy_calls.CALLS}) == len(scipy_calls.CALLS)


def test_every_call_works_on_asnumpy_arrays(rows):
    assert len(rows) == len(scipy_calls.CALLS)
    failing = [f"{row['module']}.{row['call']}: {row['detail']}" for row in rows
               if row["status"] != "works"]
    assert not failing, "\n".join(failing)
    for row in rows:
        assert all(kind in ("asnumpy", "NumPy", "scalar") for kind in row["kinds"]), row


def test_every_call_works_on_cpu1_arrays_inside_its_device_context(rows):
    # SciPy's fallbacks make results with xp.asarray(result), which names no
    # device: on the current one.  With cpu:1 current, every result is on cpu:1.
    failing = [f"{row['call']}: {row['cpu:1 current']}" for row in rows
               if scipy_table._on_device(row["cpu:1 current"]) != "works"]
    assert not failing, "\n".join(failing)


def test_every_call_works_on_float32_arrays(rows):
    failing = [f"{row['call']}: {row['float32']['detail']}" for row in rows
               if row["float32"]["status"] != "works"]
    assert not failing, "\n".join(failing)


def test_asnumpy_arrays_come_back_where_scipy_returns_torch_its_tensors(rows):
    pytest.importorskip("torch")
    # SciPy's Array API path returns the input's array type; where it gives
    # torch tensors back it must give asnumpy arrays back, never NumPy arrays
    wrong = [row["call"] for row in rows
             if "torch" in row.get("torch", "") and "NumPy" in row["kinds"]]
    assert not wrong


def test_the_docs_table_is_what_the_script_generates(rows):
    pytest.importorskip("torch")  # the table has a torch column
    current = scipy_table.DOC.read_text()
    assert scipy_table.document(scipy_table.render(rows), current) == current


def test_the_readme_states_the_tables_counts(rows):
    text = " ".join((pathlib.Path(__file__).resolve().parents[2] / "README.md")
                    .read_text().split())
    works = sum(row["status"] == "works" for row in rows)
    kinds = [tuple(row["kinds"]) for row in rows]
    arrays = sum("asnumpy" in k for k in kinds)
    numpy = sum("NumPy" in k for k in kinds)
    scalars = sum(k == ("scalar",) for k in kinds)
    assert works == len(rows)
    assert f"all {works} everyday SciPy calls" in text
    assert (f"{arrays} return asnumpy arrays; {numpy} return NumPy arrays and {scalars} "
            "scalars") in text
