"""The interop edge: protocols other libraries call on asnumpy arrays.

NumPy's dispatch (``__array_ufunc__``, ``__array_function__``), conversion to
NumPy (``__array__``: PyTorch's rule, ``host_conversion.py``), the Array API
(``__array_namespace__``, ``__array_namespace_info__``), DLPack and the CUDA
array interface.  This package only maps and forwards to the front end: no op
logic lives here.  Each module gives ndarray its protocol members (a table,
listed in ``_core/ndarray_members.py``) when ``asnumpy/__init__.py`` imports it
(after the namespace it maps to is built), DLPack's on first use.
"""
