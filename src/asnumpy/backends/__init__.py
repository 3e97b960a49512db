"""The back ends: ``cpu`` (NumPy's loops on host memory) and ``cuda`` (NVIDIA GPUs).

Each is a package exposing ``BACKEND`` (see ``docs/architecture.md``),
imported by name on first use of its kind by
:mod:`asnumpy.runtime.backend_loader`.  Back ends never import the front
end; they are handed arrays and read their layout.
"""
