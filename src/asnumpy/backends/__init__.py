"""The back ends: ``cpu`` (NumPy's loops on host memory) and ``cuda`` (NVIDIA GPUs).

Each is a package exposing ``BACKEND``, an object satisfying the back-end
protocol :class:`asnumpy.ops.backend.Backend`, imported by name on first use
of its kind by :mod:`asnumpy.runtime.backend_loader`.  Back ends never import
the front end or each other; they are handed arrays and read their layout,
and meet in the op layer (:mod:`asnumpy.ops`).
"""
