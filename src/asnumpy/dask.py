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

from ._lazy import import_optional

import_optional("dask.array", "asnumpy.dask")       # missing: the extra to install
import_optional("distributed", "asnumpy.dask")

from ._interop.dask_backend import AsnumpyBackendEntrypoint, register_dispatch  # noqa: E402
from ._interop.dask_serialization import AsnumpyWorkerPlugin, register_serialization  # noqa: E402

__all__ = ["AsnumpyBackendEntrypoint", "AsnumpyWorkerPlugin", "register_dispatch",
           "register_serialization"]
