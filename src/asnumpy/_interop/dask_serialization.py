"""asnumpy arrays on a ``distributed`` cluster: worker setup, serialization, device pinning.

Two ways an asnumpy array crosses between Dask's processes, both without
copying it through a NumPy object array or a pickled bytes blob:

- **pickle protocol 5** (always, no registration): ``ndarray.__reduce_ex__``
  hands the array's memory out of band (``asnumpy._interop.pickling``); the
  array comes back on the device it left from.
- **Dask's "dask" serialization family** (after :func:`register_serialization`,
  which :class:`AsnumpyWorkerPlugin` does in every process it reaches): one frame, a
  memoryview of the array's memory (on cpu devices: the device memory
  itself), and the array comes back on the *receiving thread's current
  device*, the device its worker is pinned to, as dask-cuda's workers receive
  CuPy arrays on their GPU.  Chunks moved between workers pinned to different
  devices so meet on one device.

:class:`AsnumpyWorkerPlugin` is a ``distributed.WorkerPlugin`` that readies
each worker process for asnumpy chunks: Dask's dispatch tables (the backend's
``register_dispatch``, so tasks built from ``da.from_array`` find asnumpy's
``concatenate``, ``percentile``, ``sizeof`` ...) and the serialization family,
and, given devices, pins each worker to one
(``asnumpy.runtime.device.set_default_device``): arrays pickled into the
task graph (``da.from_array(a)``) then land on it too
(:func:`asnumpy._interop.pickling.land_on_current_device`).
``$ASNUMPY_DEVICE`` in a worker's environment sets the default device at
start, but arrays from other processes then keep their device numbers.
"""

from __future__ import annotations

import pickle
from collections.abc import Mapping

from distributed import WorkerPlugin
from distributed.protocol import dask_deserialize, dask_serialize

from .._core.ndarray import ndarray
from ..runtime.device import Device, get_device, set_default_device
from .dask_backend import register_dispatch
from .pickling import array_over_bytes, host_bytes, host_view, land_on_current_device

__all__ = ["AsnumpyWorkerPlugin", "deserialize_array", "register_serialization",
           "serialize_array"]


def serialize_array(array: ndarray) -> tuple[dict, list[memoryview]]:
    """Dask's ``dask_serialize`` for asnumpy arrays: a header and one frame.

    The frame is a memoryview of the array's memory on cpu devices (C- or
    F-contiguous arrays; others are compacted first), of a host copy elsewhere.
    """
    host = host_view(array)
    header = {
        "shape": list(array.shape),
        "dtype": pickle.dumps(array.dtype),     # every dtype, ml_dtypes' included
        "order": "C" if host.flags.c_contiguous else "F",
        # the array's own flag: a compacted copy of a read-only view is writeable
        "writeable": bool(array.flags.writeable),
    }
    return header, [memoryview(host_bytes(host))]


def deserialize_array(header: dict, frames: list) -> ndarray:
    """Dask's ``dask_deserialize``: the array on this thread's current device.

    On cpu devices an aligned frame becomes the array's memory (no copy)
    where that keeps the sender's writeability; otherwise the frame is copied
    to the device.  A read-only array comes back read-only, a writeable one
    writeable, whatever the frame (distributed's rule for NumPy arrays).
    """
    (frame,) = frames
    writeable = header["writeable"]
    array = array_over_bytes(frame, tuple(header["shape"]), pickle.loads(header["dtype"]),
                             header["order"], get_device(), writeable=writeable)
    if not writeable:                     # the frame that arrived may well be writeable
        array.flags.writeable = False
    return array


def register_serialization() -> None:
    """Register asnumpy arrays with Dask's "dask" serialization family (idempotent).

    Every process that sends or receives asnumpy arrays needs it (the client
    and the workers; not the scheduler): :class:`AsnumpyWorkerPlugin` does it
    on the workers it is registered with and in the process that creates it.
    """
    dask_serialize.register(ndarray, serialize_array)
    dask_deserialize.register(ndarray, deserialize_array)


class AsnumpyWorkerPlugin(WorkerPlugin):
    """Ready each Dask worker for asnumpy chunks and optionally pin it to a device.

    On every worker (present and future) it registers asnumpy in Dask's
    dispatch tables and serialization family; with ``devices`` it also makes
    one device the worker process's default device.

    Parameters
    ----------
    devices : None, str, Device, sequence or mapping, optional
        None leaves the devices alone; one device pins every worker to it; a
        sequence is indexed by the worker's name (``LocalCluster`` names its
        workers 0, 1, ...; wrapped around); a mapping goes from worker name to
        device.

    Examples
    --------
    >>> client.register_plugin(AsnumpyWorkerPlugin(["cpu:0", "cpu:1"]))   # doctest: +SKIP
    """

    name = "asnumpy"

    def __init__(self, devices=None):
        if devices is None or isinstance(devices, (str, Device)):
            devices = None if devices is None else str(devices)
        elif isinstance(devices, Mapping):
            devices = {name: str(device) for name, device in devices.items()}
        else:
            devices = [str(device) for device in devices]
            if not devices:
                raise ValueError("asnumpy AsnumpyWorkerPlugin: devices must not be empty")
        self.devices = devices
        register_serialization()            # the client's side of the family

    def device_for(self, worker_name) -> str | None:
        """The device of the worker called ``worker_name`` (None: not pinned)."""
        devices = self.devices
        if devices is None or isinstance(devices, str):
            return devices
        if isinstance(devices, dict):
            if worker_name not in devices:
                raise KeyError(f"asnumpy AsnumpyWorkerPlugin: no device for worker "
                               f"{worker_name!r}")
            return devices[worker_name]
        try:
            index = int(worker_name)
        except (TypeError, ValueError):
            raise ValueError(f"asnumpy AsnumpyWorkerPlugin: a list of devices needs workers "
                             f"named by number, got worker {worker_name!r}; pass a mapping"
                             ) from None
        return devices[index % len(devices)]

    def setup(self, worker):
        register_dispatch()
        register_serialization()
        device = self.device_for(worker.name)
        if device is not None:
            set_default_device(device)
            land_on_current_device()        # arrays pickled into the graph too
