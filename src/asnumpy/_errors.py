"""Exceptions of asnumpy that NumPy itself has no equivalent for."""


class OutOfMemoryError(MemoryError):
    """A device's memory pool could not satisfy an allocation.

    Raised after the pool has released its cached blocks, run the garbage
    collector and retried.  It names the device, the request and the limit;
    the pool stays usable afterwards.
    """

    def __init__(self, device, requested, limit, in_use, reason=None):
        self.device = device
        self.requested = requested
        self.limit = limit
        self.in_use = in_use
        self.reason = reason
        limit_text = "no limit" if not limit else f"limit {limit:,} bytes"
        # reason: what the device's allocator said (the driver's CUDA_ERROR_OUT_OF_MEMORY:
        # the device itself is full, perhaps by another process's memory)
        super().__init__(
            f"out of memory on device {device}: failed to allocate "
            f"{requested:,} bytes ({limit_text}, {in_use:,} bytes in use)"
            + (f"; the device's allocator reported: {reason}" if reason else "")
        )


class DeviceUnavailableError(ValueError):
    """A device name was recognised but that device cannot be used here."""
