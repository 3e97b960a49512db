"""The op layer: what the front end and every back end share about each op.

Beneath the front end (``_core``) and beside the runtime, above nothing but
NumPy and the runtime's memory:

* :mod:`.ufuncs` -- one entry per universal function (:class:`~.ufuncs.UfuncOp`):
  the NumPy ufunc it mirrors, its category, its C form per type class, its
  cost weight, the Array API special values it follows where NumPy differs,
  its tolerance class, its operator forms and aliases.  The front end's
  catalog, the namespace's exports, the ndarray operators, the cuda device
  functions, the cpu split weights and the tests' tolerances are all read
  from it.
* :mod:`.special_values` -- the Array API standard's special values where
  NumPy's loops give others, as NumPy expressions any back end can run.
* :mod:`.kernels` -- the kernel set every back end offers: names, what each
  is called with, and the fallback policy of each.
* :mod:`.backend` -- the declared back-end protocol (:class:`~.backend.Backend`),
  and :func:`~.backend.missing_kernel`, the one error for a kernel a back end lacks.
* :mod:`.host_fallback` -- a kernel a device lacks, run by the cpu back end on
  host copies of its arrays (the shared fallback of every device with its
  own memory).
* :mod:`.cxx` -- the one portable C++ source: the prelude (one half type, one
  complex type), the dtype -> C type table, the ufunc device functions
  rendered from the op table, and a renderer per target (host C++, CUDA C).

Nothing here imports the front end (``asnumpy._core``), the back ends
(``asnumpy.backends``) or the user-kernel layer (``asnumpy.extension``);
``.importlinter`` holds that.
"""
