"""Generated C++ for every target: types, layout arithmetic, the prelude, per-target framing.

Nothing here touches a device: the back ends compile and launch what these
modules render (``backend.compile(source, device) -> program``), and the
renderers above them (``asnumpy.extension``: user kernels and fusion) reach a
target's particulars through ``device.backend.cxx`` (:mod:`.targets`).
"""
