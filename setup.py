"""The one compiled piece of asnumpy: the cpu fast lane's common cases (asnumpy._core._compiled).

Everything else is in pyproject.toml.  The extension is optional: where no C
compiler can build it, the install goes on without it (one line says so) and
asnumpy runs its pure-Python lanes, which give the same results, more slowly
(docs/performance.md, "The compiled path"; ``python -m asnumpy.check`` says
which path is in use).
"""

import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

NOTICE = ("asnumpy: no C compiler could build the compiled call path ({}); installing the "
          "pure-Python path (same results, slower small calls)")


class OptionalBuildExt(build_ext):
    """build_ext that treats a failed build of the compiled path as its absence."""

    def run(self):
        try:
            super().run()
        except Exception as error:           # no compiler at all (distutils' CCompilerError, ...)
            print(NOTICE.format(type(error).__name__), file=sys.stderr)

    def build_extension(self, extension):
        try:
            super().build_extension(extension)
        except Exception as error:           # the compiler failed or is missing
            print(NOTICE.format(type(error).__name__), file=sys.stderr)




def _extensions():
    """The compiled path's extension, built against NumPy's headers (a build requirement)."""
    try:
        import numpy
    except ImportError as error:
        print(NOTICE.format(f"NumPy's headers: {error}"), file=sys.stderr)
        return []
    return [Extension("asnumpy._core._compiled", ["src/asnumpy/_core/_compiled.c"],
                      include_dirs=[numpy.get_include()],
                      extra_compile_args=["-O2"] if sys.platform != "win32" else [])]


setup(
    ext_modules=_extensions(),
    cmdclass={"build_ext": OptionalBuildExt},
)
