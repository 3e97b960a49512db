"""Property test: random index expressions, get and set, against NumPy.

Hypothesis draws a shape, a layout (plain, reversed, strided) and an index
expression mixing slices (any step), integers, integer arrays, boolean
masks, ``...`` and ``None``.  ``a[key]`` must give NumPy's values, dtype and
shape or NumPy's exception type; ``a[key] = value`` must leave the whole
array as NumPy leaves it (or raise as NumPy does).
"""

import numpy
from hypothesis import given, settings
from hypothesis import strategies as st

import asnumpy

shapes = st.lists(st.integers(0, 4), min_size=0, max_size=3).map(tuple)


@st.composite
def index_items(draw, shape):
    items = []
    axis = 0
    used_ellipsis = False
    for _ in range(draw(st.integers(0, len(shape) + 1))):
        size = shape[axis] if axis < len(shape) else 1
        kind = draw(st.sampled_from(["slice", "int", "array", "mask", "none", "ellipsis"]))
        if kind == "none":
            items.append(None)
            continue
        if kind == "ellipsis":
            if used_ellipsis:
                continue
            used_ellipsis = True
            items.append(Ellipsis)
            axis = len(shape) - (len(items) - 1)   # approximate: later items index trailing axes
            axis = max(axis, 0)
            continue
        if kind == "slice":
            bound = st.none() | st.integers(-size - 2, size + 2)
            step = draw(st.none() | st.integers(-3, 3).filter(lambda s: s != 0))
            items.append(slice(draw(bound), draw(bound), step))
        elif kind == "int":
            items.append(draw(st.integers(-size - 1, size)))      # sometimes out of range
        elif kind == "array":
            n = draw(st.integers(0, 3))
            values = draw(st.lists(st.integers(-size - 1, max(size, 1)), min_size=n, max_size=n))
            items.append(numpy.asarray(values, dtype=numpy.intp))
        else:
            n = draw(st.sampled_from([size, size, max(size - 1, 0)]))   # sometimes mismatched
            items.append(numpy.asarray(draw(st.lists(st.booleans(), min_size=n, max_size=n)),
                                       dtype=bool))
        axis += 1
    return tuple(items)


@st.composite
def cases(draw):
    shape = draw(shapes)
    key = draw(index_items(shape))
    device_indices = draw(st.booleans())
    layout = draw(st.sampled_from(["plain", "reversed", "strided"]))
    dtype = draw(st.sampled_from([numpy.int16, numpy.float32, numpy.complex128, numpy.bool_]))
    return shape, key, device_indices, layout, dtype


def _layout(x, layout):
    if x.ndim == 0 or layout == "plain":
        return x
    if layout == "reversed":
        return x[::-1]
    return x[..., ::2]


def _outcome(fn):
    try:
        return fn(), None
    except Exception as exc:   # noqa: BLE001 - compared with NumPy's
        return None, exc


def _device_key(key, device_indices):
    if not device_indices:
        return key
    return tuple(asnumpy.asarray(k) if isinstance(k, numpy.ndarray) and k.size else k
                 for k in key)


@settings(max_examples=200, deadline=None)
@given(cases(), st.integers(0, 2**32 - 1))
def test_random_index_get_and_set(case, seed):
    shape, key, device_indices, layout, dtype = case
    rng = numpy.random.default_rng(seed)
    base = numpy.asarray((rng.standard_normal(shape) * 5).astype(dtype))
    host = _layout(base.copy(), layout)
    dev = _layout(asnumpy.asarray(base), layout)
    dkey = _device_key(key, device_indices)

    expected, n_err = _outcome(lambda: host[key])
    got, a_err = _outcome(lambda: dev[dkey])
    if n_err is not None:
        assert a_err is not None and isinstance(a_err, type(n_err)), (key, n_err, a_err)
        return
    assert a_err is None, (key, a_err)
    assert isinstance(got, asnumpy.ndarray)
    got = got.get()
    assert got.dtype == numpy.asarray(expected).dtype
    assert got.shape == numpy.shape(expected)
    numpy.testing.assert_array_equal(got, expected)

    # set: a value broadcasting to the selection (or a scalar)
    sel_shape = numpy.shape(expected)
    trim = rng.integers(0, len(sel_shape) + 1)
    value = numpy.asarray((rng.standard_normal(sel_shape[trim:]) * 5).astype(dtype))
    _, n_err = _outcome(lambda: host.__setitem__(key, value))
    _, a_err = _outcome(lambda: dev.__setitem__(dkey, asnumpy.asarray(value)))
    if n_err is not None:
        assert a_err is not None and isinstance(a_err, type(n_err)), (key, n_err, a_err)
    else:
        assert a_err is None, (key, a_err)
    numpy.testing.assert_array_equal(dev.get(), host)
    host[key] = 7
    dev[dkey] = 7
    numpy.testing.assert_array_equal(dev.get(), host)
