"""asnumpy on Dask: the public face of the integration (docs/scale-out.md).

Importing this module imports Dask and ``distributed`` (``pip install
"asnumpy[dask]"``); ``import asnumpy`` never does.

- ``dask.config.set({"array.backend": "asnumpy"})`` needs nothing from here:
  Dask loads :class:`AsnumpyBackendEntrypoint` through its entry point.
- :class:`AsnumpyWorkerPlugin` readies a cluster's workers (dispatch tables,
  serialization) and pins each to a device.
- :func:`register_dispatch` and :func:`register_serialization` do the same
  registrations in the calling process.
"""

from ._interop.dask_backend import AsnumpyBackendEntrypoint, register_dispatch
from ._interop.dask_serialization import AsnumpyWorkerPlugin, register_serialization

__all__ = ["AsnumpyBackendEntrypoint", "AsnumpyWorkerPlugin", "register_dispatch",
           "register_serialization"]
