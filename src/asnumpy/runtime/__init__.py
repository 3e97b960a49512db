"""The device runtime: devices, memory pools, streams and events."""

from .device import (
    Device, default_device, devices, finalize, get_device, init, reset_device,
    reset_device_force, set_device, synchronize,
)
from .graph import Graph, StreamCaptureError
from .memory import Buffer, MemoryPool
from .stream import DefaultStream, Event, Stream, get_current_stream
from .threads import cpu_calibration, cpu_threads, set_cpu_threads

__all__ = [
    "Buffer", "DefaultStream", "Device", "Event", "Graph", "MemoryPool", "Stream",
    "StreamCaptureError", "default_device",
    "devices", "finalize", "get_current_stream", "get_device", "init", "reset_device",
    "reset_device_force", "set_device", "synchronize", "cpu_calibration", "cpu_threads", "set_cpu_threads",
]
