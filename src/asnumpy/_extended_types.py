"""NumPy's extended-precision type objects, which exist on some platforms only.

``numpy.float128``/``complex256`` (x86-64 Linux) or ``float96``/``complex192``
(32-bit x86) name ``longdouble``/``clongdouble`` where the platform has them;
asnumpy re-exports whichever NumPy has.  asnumpy arrays cannot hold them.
"""

import numpy as np

TYPES = {name: getattr(np, name)
         for name in ("float96", "float128", "complex192", "complex256") if hasattr(np, name)}
