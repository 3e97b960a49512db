"""The sign bits of zeros, to compare beside values (``-0.0 == 0.0`` hides them)."""


def _signs(xp, part):
    """Sign bits, except of NaNs (their sign is no part of NumPy's contract)."""
    return xp.logical_and(xp.signbit(part), xp.logical_not(xp.isnan(part)))


def with_signs(xp, result):
    """The result and the sign bits of its zeros (real and imaginary parts)."""
    if result.dtype.kind == "c":
        return result, _signs(xp, result.real), _signs(xp, result.imag)
    if result.dtype.kind == "f":
        return result, _signs(xp, result)
    return (result,)
