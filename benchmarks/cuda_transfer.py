"""Host<->device bandwidth of the cuda back end: pinned vs pageable, contiguous vs strided.

Rows (GB/s, median of ``repeats``; each timing ends with the device
synchronized, so the DMA is counted):

* ``staged``: what ``asarray``/``asnumpy`` do -- a pageable NumPy array
  copied in chunks through the pinned staging pool (host copies of one chunk
  overlap the DMA of the next);
* ``pageable``: the same copy straight from/to pageable memory (the staging
  pool switched off: the driver stages it itself);
* ``pinned``: one driver copy from/to a pinned block (the DMA ceiling, no
  host copy at all);
* ``strided 2D``: every other row of a twice-as-tall array (``a[::2]``):
  one ``cuMemcpy2DAsync`` per chunk, only the view's bytes move;
* ``strided, whole buffer``: the same view the way the back end used to
  read it -- the whole buffer copied, then packed on the host.

Runs on a GPU when cuda-core finds one, else on the test suite's emulated
driver (``tests/_cuda_emulator.py``; ``--emulated`` forces it), where the
figures measure host memory copies only and mean little: no results file
is written.  Usage: ``python benchmarks/cuda_transfer.py [--mbytes 64]
[--repeats 7] [--emulated]``.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def cuda_device(emulated: bool):
    """``cuda:0``: a real GPU unless ``emulated`` or none loads, else the emulated driver."""
    if not emulated and not os.environ.get("ASNUMPY_CUDA_DRIVER"):
        try:
            from asnumpy.backends.cuda.driver import CudaCoreDriver

            CudaCoreDriver()
        except Exception:
            emulated = True
    if emulated:
        sys.path.insert(0, os.path.join(HERE, os.pardir, "tests"))
        os.environ["ASNUMPY_CUDA_DRIVER"] = "_cuda_emulator:Driver"
        from asnumpy.runtime import device as registry

        registry._kinds_missing.pop("cuda", None)
    import asnumpy as ap

    return ap.Device("cuda:0"), emulated


def timed(function, device, repeats) -> float:
    """Median seconds of ``function()`` followed by a device synchronize."""
    from _timing import back_to_back_medians

    def synchronized():
        function()
        device.synchronize()
    return back_to_back_medians([synchronized], repeats)[0]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mbytes", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--emulated", action="store_true")
    options = parser.parse_args(argv)
    device, emulated = cuda_device(options.emulated)
    import asnumpy as ap
    from _timing import machine_line

    backend, driver = device.backend, device.backend.driver
    nbytes = options.mbytes << 20
    host = np.random.default_rng(0).standard_normal(nbytes // 8)
    out = np.empty_like(host)
    a = ap.asarray(host, device=device)
    tall = ap.asarray(np.concatenate([host, host]).reshape(-1, 1024), device=device)
    rows = tall[::2]                                   # nbytes of every other row
    rows_out = np.empty(rows.shape)
    pinned = driver.alloc_pinned(nbytes)
    stream = ap.get_current_stream(device)._native

    def unstaged(function):
        def run():
            staging, backend.staging = backend.staging, None
            try:
                function()
            finally:
                backend.staging = staging
        return run

    def whole_buffer():
        whole = np.empty(tall.nbytes, np.uint8)
        driver.make_current(device.index)
        driver.copy_dtoh(whole, backend.pointer(tall), tall.nbytes, stream)
        np.copyto(rows_out, whole.view(np.float64).reshape(tall.shape)[::2])

    def pinned_copy(kind):
        def run():
            driver.make_current(device.index)
            if kind == "htod":
                driver.copy_htod(backend.pointer(a), pinned, nbytes, stream)
            else:
                driver.copy_dtoh(pinned, backend.pointer(a), nbytes, stream)
        return run

    def upload():
        a[...] = host

    def download():
        ap.asnumpy(a, out=out)

    cases = [
        ("host to device", "staged", upload),
        ("host to device", "pageable", unstaged(upload)),
        ("host to device", "pinned", pinned_copy("htod")),
        ("host to device", "strided 2D", lambda: rows.__setitem__(Ellipsis, rows_out)),
        ("device to host", "staged", download),
        ("device to host", "pageable", unstaged(download)),
        ("device to host", "pinned", pinned_copy("dtoh")),
        ("device to host", "strided 2D", lambda: ap.asnumpy(rows, out=rows_out)),
        ("device to host", "strided, whole buffer", whole_buffer),
    ]
    print(machine_line(device) + (" (emulated driver: host copies only)" if emulated else
                                  f" ({driver.name(device.index)})"))
    print(f"{options.mbytes} MiB per copy, median of {options.repeats}")
    print(f"{'direction':16} {'path':24} {'GB/s':>8}")
    for direction, path, function in cases:
        seconds = timed(function, device, options.repeats)
        print(f"{direction:16} {path:24} {nbytes / seconds / 1e9:8.2f}")


if __name__ == "__main__":
    main()
