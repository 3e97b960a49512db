"""One C function per ufunc loop, rendered from a table of per-type-class C forms.

A table maps each ufunc's name to ``{type classes: C text}`` (the classes of
the first input: ``b`` bool, ``i`` signed integer, ``u`` unsigned integer,
``h`` half, ``f`` float -- half too unless ``h`` is given -- and ``c``
complex; the text is an expression, or a statement block assigning ``r0``,
``r1`` for several outputs).  :class:`UfuncForms` turns one loop of such a
table into a ``__device__ __forceinline__`` function computing one element,
which compiles after the prelude on every target (the host target defines
``__device__`` away).  The table is the op table's C forms
(:mod:`asnumpy.ops.ufuncs`, whose docstring documents the names a form may
use); :func:`op_table_forms` is its one renderer, which every target uses.
"""

from __future__ import annotations

import functools

import numpy

from .types import CTYPES

__all__ = ["UfuncForms", "op_table_forms"]

_CLASS = {"?": "b", "e": "h", "f": "f", "d": "f", "F": "c", "D": "c"}
_CLASS.update(dict.fromkeys("bhilq", "i"))
_CLASS.update(dict.fromkeys("BHILQ", "u"))
_TOKEN = {"?": "o"}  # characters not allowed in C names
_SUPPORTED = frozenset(CTYPES)


def _chars(loop) -> str:
    if isinstance(loop, str):
        return loop.replace("->", "")
    return "".join(numpy.dtype(t).char for t in loop)


class UfuncForms:
    """The device functions of one table of ufunc C forms.

    Parameters
    ----------
    table : dict of str to dict of str to str
        ufunc name -> {type classes: C expression or statement block}.
    prelude : str
        The C++ the functions compile after (types, ``asn_cast``, math helpers).
    """

    def __init__(self, table, prelude: str = ""):
        self.table, self.prelude = table, prelude

    def __contains__(self, name) -> bool:
        return name in self.table

    def loops(self, name: str) -> list[tuple[numpy.dtype, ...]]:
        """Every supported loop of a ufunc.

        Parameters
        ----------
        name : str
            NumPy ufunc ``__name__`` (a key of the table).

        Returns
        -------
        list of tuple of numpy.dtype
            Inputs then outputs, in the order of ``numpy.<name>.types`` with
            duplicates dropped ('l' and 'q' are kept apart, as NumPy lists both).

        Raises
        ------
        KeyError
            When ``name`` has no scalar form here.
        """
        if name not in self.table:
            raise KeyError(f"no cuda scalar form for ufunc {name!r}")
        seen, out = set(), []
        for sig in getattr(numpy, name).types:
            chars = sig.replace("->", "")
            if chars in seen or not set(chars) <= _SUPPORTED:
                continue
            seen.add(chars)
            out.append(tuple(numpy.dtype(c) for c in chars))
        return out

    def _template(self, name: str, cls: str) -> str:
        entry = self.table[name]
        if cls == "h" and not any("h" in k for k in entry):
            cls = "f"
        for classes, text in entry.items():
            if cls in classes:
                return text
        raise TypeError(f"ufunc {name!r} has no loop for type class {cls!r}")

    @staticmethod
    def function_name(name: str, loop) -> str:
        """The C name of the device function of ``name`` for ``loop``."""
        chars = _chars(loop)
        nin = getattr(numpy, name).nin
        tok = "".join(_TOKEN.get(c, c) for c in chars)
        return f"asn_{name}_{tok[:nin]}_{tok[nin:]}"

    def device_function(self, name: str, loop) -> tuple[str, str]:
        """C source of the ``__device__`` function computing one loop of a ufunc.

        Parameters
        ----------
        name : str
            NumPy ufunc ``__name__``.
        loop : sequence of numpy.dtype or str
            Input then output dtypes, as one entry of ``numpy.<name>.types``
            (a string such as ``'ff->f'`` is accepted too).

        Returns
        -------
        source : str
            Defines ``__device__ __forceinline__ void FN(In0 x0[, In1 x1],
            Out0 &y0[, Out1 &y1])``; it compiles after the prelude, and
            sources of several functions can be concatenated.
        function_name : str
            ``FN``, unique per ``(name, loop)``.

        Raises
        ------
        TypeError
            When ``loop`` is not a supported loop of ``name``.
        """
        if name not in self.table:
            raise TypeError(f"no cuda scalar form for ufunc {name!r}")
        chars = _chars(loop)
        if chars not in {_chars(lp) for lp in self.loops(name)}:
            raise TypeError(f"{name} has no supported loop {chars!r}")
        ufunc = getattr(numpy, name)
        ins, outs = chars[:ufunc.nin], chars[ufunc.nin:]
        text = self._template(name, _CLASS[ins[0]])
        fn = self.function_name(name, chars)
        params = [f"{CTYPES[c]} x{k}" for k, c in enumerate(ins)]
        params += [f"{CTYPES[c]} &y{k}" for k, c in enumerate(outs)]
        lines = [f"__device__ __forceinline__ void {fn}({', '.join(params)}) {{"]
        tnames = ["T", "T1"]
        for k, c in enumerate(ins):
            lines.append(f"    typedef typename asn_compute<{CTYPES[c]}>::type {tnames[k]};")
        for k, c in enumerate(ins):
            lines.append(f"    const {tnames[k]} {'ab'[k]} = asn_cast<{tnames[k]}>(x{k}); "
                         f"(void){'ab'[k]};")
        if ";" in text:  # statement block assigning r0, r1
            for k, c in enumerate(outs):
                lines.append(f"    typename asn_compute<{CTYPES[c]}>::type r{k};")
            lines.append(f"    {text}")
            for k, c in enumerate(outs):
                lines.append(f"    y{k} = asn_cast<{CTYPES[c]}>(r{k});")
        else:
            lines.append(f"    y0 = asn_cast<{CTYPES[outs[0]]}>({text});")
        lines.append("}")
        return "\n".join(lines) + "\n", fn


@functools.cache
def op_table_forms() -> UfuncForms:
    """The op table's C forms (:mod:`asnumpy.ops.ufuncs`) after the one prelude: the
    renderer of every target's ufunc device functions (built on first use)."""
    from ..ufuncs import OPS
    from .prelude import PRELUDE

    return UfuncForms({name: dict(op.c) for name, op in OPS.items() if op.c}, PRELUDE)
