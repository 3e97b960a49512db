"""Everyday NumPy idioms give NumPy's answer when ``np`` is asnumpy.

A table of one-liners a NumPy user writes without thinking (indexing, Python's
built-ins on arrays, f-strings of results, ``round``/``int``/``float``, printing,
saving), each run on the same data with NumPy and with asnumpy and compared.  asnumpy
returns 0-d arrays where NumPy returns scalars (its documented design), so a 0-d
array and a NumPy scalar of the same dtype and value count as the same answer;
Python objects (ints, floats, strings, lists, tuples, dicts) must match in type and
value, arrays in dtype, shape and values.

``python tests/project/test_idioms.py`` prints how many idioms work (the count in the
docs' "Habits that work" and in issue 25's closing note).
"""

import io
import json
import math
import operator

import numpy
import pytest

import asnumpy

# name -> code: an expression, or statements that set ``result``.  Names available:
# xp (the module), a (1-d float64, 8 values), m (2-d 3x4), sq (3x3 invertible),
# v (3 values), i (1-d int64), io, json, math, operator.
IDIOMS = {
    "boolean mask": "a[a > 0]",
    "matmul of transpose": "m.T @ m",
    "where": "xp.where(a > 0, a, 0)",
    "astype(int)": "a.astype(int)",
    "list(a)": "list(a)",
    "for row in m": "[row.sum() for row in m]",
    "len": "len(a)",
    "shape": "m.shape",
    "f-string of mean": 'f"{a.mean():.3f}"',
    "f-string of element": 'f"{a[0]:.2f}"',
    "f-string width": 'f"{m[1, 2]:>10.4f}|"',
    "f-string of int": 'f"{i.sum():05d}"',
    "str.format": '"{:.2f}".format(a.max())',
    "percent format": '"%.3f" % a[1]',
    "format e": 'format(a.std(), ".2e")',
    "allclose": "xp.allclose(a, a + 1e-12)",
    "tolist": "a.tolist()",
    "unique counts": "xp.unique(i, return_counts=True)",
    "sorted": "sorted(a)",
    "builtin max": "max(a)",
    "builtin sum": "sum(a)",
    "in": "0.5 in a",
    "0-d += 1": "x = a[0]\nx += 1\nresult = x",
    "0-d += 1 leaves the array": "x = a[0]\nx += 1\nresult = a",
    "an element is a snapshot": "x = a[0]\na[0] = 9.0\nresult = x",
    "savetxt": "buf = io.StringIO()\nxp.savetxt(buf, m, fmt='%.3f')\nresult = buf.getvalue()",
    "save/load": "buf = io.BytesIO()\nxp.save(buf, m)\nbuf.seek(0)\nresult = xp.load(buf)",
    "item()": "a[2:3].item()",
    "item(k)": "m.item(5)",
    "item(r, c)": "m.item(1, 2)",
    "isnan any": "xp.isnan(a).any()",
    "reshape(-1, 1)": "a.reshape(-1, 1)",
    "concatenate": "xp.concatenate([a, a])",
    "c_": "xp.c_[v, v]",
    "r_": "xp.r_[v, 0, v]",
    "pad": "xp.pad(a, 2)",
    "dict zip": "dict(zip(['p', 'q', 'r'], v))",
    "int argmax": "int(a.argmax())",
    "range size": "list(range(a.size))",
    "new axis": "a[..., None]",
    "round(x, 2)": "round(a.sum(), 2)",
    "round(x)": "round(a.max())",
    "float()": "float(a.max())",
    "int(sum)": "int(i.sum())",
    "if any": "result = 'yes' if (a > 0).any() else 'no'",
    "mean axis": "m.mean(axis=0)",
    "sum keepdims": "m.sum(axis=1, keepdims=True)",
    "column": "m[:, 0]",
    "element": "m[1, 2]",
    "fancy rows": "m[[0, 2]]",
    "masked assignment": "m[m > 0.5] = 0\nresult = m",
    "slice assignment": "a[:3] = 1.0\nresult = a",
    "augmented": "a *= 2\nresult = a",
    "arange step": "xp.arange(10)[::2]",
    "linspace": "xp.linspace(0, 1, 5)",
    "zeros": "xp.zeros((2, 3))",
    "ones_like": "xp.ones_like(a)",
    "eye": "xp.eye(3)",
    "argsort": "a.argsort()",
    "reverse sort": "xp.sort(a)[::-1]",
    "cumsum": "xp.cumsum(a)",
    "diff": "xp.diff(a)",
    "dot": "xp.dot(a, a)",
    "norm": "xp.linalg.norm(a)",
    "inv": "xp.linalg.inv(sq)",
    "solve": "xp.linalg.solve(sq, v)",
    "stack": "xp.stack([v, v])",
    "vstack": "xp.vstack([v, v])",
    "clip": "a.clip(0, 1)",
    "abs builtin": "abs(a)",
    "power": "a ** 2",
    "floor div": "a // 0.5",
    "maximum": "xp.maximum(a, 0)",
    "exp": "xp.exp(a)",
    "mean and std": "(xp.mean(a), xp.std(a))",
    "median": "xp.median(a)",
    "percentile": "xp.percentile(a, 90)",
    "histogram": "xp.histogram(a, bins=3)",
    "argwhere": "xp.argwhere(a > 0)",
    "nonzero": "xp.nonzero(a > 0)",
    "min max tuple": "(a.min(), a.max())",
    "str": "str(m)",
    "repr": "repr(v)",
    "dtype check": "a.dtype == xp.float64",
    "dtype name": "a.dtype.name",
    "size ndim nbytes": "(a.size, a.ndim, a.nbytes)",
    "negative index": "a[-1]",
    "inner slice": "a[1:-1]",
    "scalar type times": "xp.float32(1.5) * v",
    "list to array": "xp.asarray([1, 2, 3]) * 2",
    "flatten": "m.flatten()",
    "einsum": "xp.einsum('ij,j->i', sq, v)",
    "meshgrid": "xp.meshgrid(v, v)",
    "math.sqrt": "math.sqrt(a[0] ** 2)",
    "math.floor": "math.floor(a[1])",
    "map float": "list(map(float, v))",
    "enumerate": "[(k, float(x)) for k, x in enumerate(v)]",
    "mean by hand": "a.sum() / len(a)",
    "round method": "a.round(2)",
    "count_nonzero": "xp.count_nonzero(a > 0)",
    "bincount": "xp.bincount(i)",
    "searchsorted": "xp.searchsorted(xp.sort(a), 0.0)",
    "all equal": "(a == a).all()",
    "index with int array": "a[xp.argsort(a)][:3]",
    "tobytes": "v.tobytes()",
    "json of tolist": "json.dumps(m.tolist())",
    "split": "xp.split(a, 2)",
    "tile": "xp.tile(v, 2)",
    "operator.index": "[10, 20, 30, 40][operator.index(i[0])]",
    "list index by 0-d": "['x', 'y', 'z'][i[1]]",
    "np.float64 of 0-d": "xp.float64(a[0])",
    "sum over generator": "sum(x * x for x in v)",
    "comparison chain": "bool(0 < a.max() < 10)",
    "array of elements": "xp.array([a[0], a[1]])",
    "mean of list": "xp.mean([1, 2, 3])",
    "math.isclose": "math.isclose(a[0], 0.25)",
    "f-string plain": 'f"{a}"',
    "str of element": "str(a[0])",
    "index by argmax": "a[a.argmax()]",
    "range of element": "list(range(i[0]))",
    "zeros of element": "xp.zeros(i[0])",
    "percent d": "'%d' % i[0]",
    "zip pairs": "[(float(p), float(q)) for p, q in zip(a, a[::-1])]",
    "max with key": "max(range(len(a)), key=lambda k: a[k])",
    "divmod": "divmod(a[2], 2)",
    "math.isnan": "math.isnan(a[0])",
    # asnumpy's 0-d arrays are arrays, not NumPy scalars (below: KNOWN_DIFFERENCES)
    "isinstance float": "isinstance(a.sum(), float)",
    "dict key by element": "{3: 'three', 1: 'one'}[i[0]]",
    "set of elements": "set(i)",
    "is_integer": "a[2].is_integer()",
    "repr of element": "repr(a[0])",
}

# Idioms that need a NumPy scalar, which asnumpy's results are not by design: a 0-d
# array lives on the device, is mutable and so unhashable (as NumPy's 0-d arrays and
# CuPy's), and is no subclass of float.  .item() (or float()/int()) gives the scalar.
KNOWN_DIFFERENCES = {
    "isinstance float": "numpy.float64 subclasses float; a 0-d array does not",
    "dict key by element": "a 0-d array is unhashable: use i[0].item() as the key",
    "set of elements": "0-d arrays are unhashable: set(i.tolist())",
    "is_integer": "a float method of numpy.float64: float(a[2]).is_integer()",
    "repr of element": "repr of a 0-d array is array(0.25), of NumPy's scalar np.float64(0.25)",
    # CuPy's rule: an element taken by integer indexing is a 0-d view of the array
    "0-d += 1 leaves the array": "a[0] is a 0-d view (CuPy's rule): x += 1 writes a[0]; "
                                 "take x = a[0].copy() or a[0].item()",
    "an element is a snapshot": "a[0] is a 0-d view (CuPy's rule): it sees later writes "
                                "to a; a[0].copy() or a[0].item() is a snapshot",
}


def _data(xp):
    """The idioms' arrays, the same values for both libraries."""
    host = {
        "a": numpy.array([0.25, -1.5, 3.0, 0.5, -0.125, 2.0, 0.75, -2.25]),
        "m": numpy.arange(12.0).reshape(3, 4) / 7.0,
        "sq": numpy.array([[4.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 2.0]]),
        "v": numpy.array([1.0, 2.0, 3.5]),
        "i": numpy.array([3, 1, 2, 3, 0, 1, 3]),
    }
    env = {name: xp.asarray(value) for name, value in host.items()}
    env.update(xp=xp, io=io, json=json, math=math, operator=operator)
    return env


def run(xp, code):
    """The result of one idiom with module ``xp``."""
    env = _data(xp)
    if "result =" in code:
        exec(code, env)
        return env["result"]
    return eval(code, env)


def _normal(value):
    """A comparable form: arrays (and NumPy scalars, and asnumpy's 0-d arrays) as NumPy
    arrays, containers element by element, Python objects as they are."""
    if isinstance(value, asnumpy.ndarray):
        return ("array", value.get())
    if isinstance(value, (numpy.ndarray, numpy.generic)):
        return ("array", numpy.asarray(value))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [_normal(item) for item in value])
    if isinstance(value, dict):
        return ("dict", {key: _normal(item) for key, item in value.items()})
    return (type(value).__name__, value)


def _same(left, right) -> bool:
    if left[0] != right[0]:
        return False
    if left[0] == "array":
        x, y = left[1], right[1]
        if x.dtype != y.dtype or x.shape != y.shape:
            return False
        if x.dtype.kind in "fc":        # (a device's exp may differ from NumPy's by an ulp)
            return numpy.allclose(x, y, rtol=1e-14, atol=0, equal_nan=True)
        return numpy.array_equal(x, y)
    if left[0] in ("list", "tuple"):
        return len(left[1]) == len(right[1]) and all(map(_same, left[1], right[1]))
    if left[0] == "dict":
        return left[1].keys() == right[1].keys() and all(
            _same(left[1][k], right[1][k]) for k in left[1])
    return left[1] == right[1]


def works(code) -> bool:
    """Whether the idiom runs with asnumpy and gives NumPy's answer."""
    expected = _normal(run(numpy, code))
    try:
        got = _normal(run(asnumpy, code))
    except Exception:
        return False
    return _same(expected, got)


# (runs on the default device: with ASNUMPY_DEVICE=cuda:0 the idioms hold on cuda too)
@pytest.mark.parametrize("name", [
    pytest.param(name, marks=pytest.mark.xfail(reason=KNOWN_DIFFERENCES[name], strict=True))
    if name in KNOWN_DIFFERENCES else name for name in IDIOMS])
def test_idiom_gives_numpys_answer(name):
    code = IDIOMS[name]
    expected = _normal(run(numpy, code))
    got = _normal(run(asnumpy, code))
    assert _same(expected, got), f"{code!r}: NumPy {expected!r}, asnumpy {got!r}"


def test_the_table_is_about_a_hundred_idioms():
    assert len(IDIOMS) >= 100 and KNOWN_DIFFERENCES.keys() <= IDIOMS.keys()


if __name__ == "__main__":
    failing = [name for name, code in IDIOMS.items() if not works(code)]
    print(f"{len(IDIOMS) - len(failing)} of {len(IDIOMS)} everyday NumPy idioms work "
          f"(asnumpy {asnumpy.__file__})")
    for name in failing:
        print("  fails:", name, "-", IDIOMS[name])
