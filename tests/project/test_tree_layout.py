"""The layout of ``tests/``: its folders mirror the package (docs/architecture.md).

Every folder under ``tests/`` names a package or module of ``asnumpy`` by its path
(``tests/backends/cuda`` -> ``asnumpy/backends/cuda/``, ``tests/core/ufuncs`` ->
``asnumpy/_core/ufuncs/``; the private packages drop their underscore: ``core``,
``interop``), except ``project/``, the whole-project checks, and the data folders
listed here.  The test files sit in those folders, none at the root (the root holds
``conftest.py`` and the shared helper modules, ``_*.py``), and their basenames are
unique: pytest's default "prepend" import mode imports each by its basename, with no
``__init__.py`` files.
"""

from __future__ import annotations

from pathlib import Path

import asnumpy

TESTS = Path(__file__).resolve().parents[1]
PACKAGE = Path(asnumpy.__file__).resolve().parent

#: test folder name -> the package's name for it
PRIVATE = {"core": "_core", "interop": "_interop"}
#: folders of whole-project checks, mirroring no one part of the package
PROJECT = "project"
#: folders of data the tests read (programs, scripts), not of tests
DATA = {"project/typing", "project/ported_scripts"}


def _folders():
    for path in sorted(TESTS.rglob("*")):
        relative = path.relative_to(TESTS)
        if path.is_dir() and not any(p.startswith((".", "__pycache__")) for p in relative.parts):
            yield relative


def _mirrors(folder: Path) -> bool:
    """Whether ``folder`` (relative to tests/) names a package or module of asnumpy."""
    target = PACKAGE.joinpath(*(PRIVATE.get(part, part) for part in folder.parts))
    return target.is_dir() or target.with_suffix(".py").is_file()


def test_every_folder_names_a_part_of_the_package():
    stray = [folder.as_posix() for folder in _folders()
             if folder.as_posix() not in DATA
             and not (folder.parts[0] == PROJECT and len(folder.parts) == 1)
             and not _mirrors(folder)]
    assert not stray, (f"folders under tests/ that name no package or module under "
                       f"{PACKAGE} (nor are project/ or data folders): {stray}")


def test_the_data_folders_exist():
    assert all((TESTS / folder).is_dir() for folder in DATA), DATA


def test_no_test_file_at_the_root():
    assert not sorted(path.name for path in TESTS.glob("test_*.py"))


def test_test_file_basenames_are_unique_and_there_are_no_packages():
    names = [path.name for path in TESTS.rglob("test_*.py")]
    assert len(names) == len(set(names)), sorted(n for n in set(names) if names.count(n) > 1)
    assert not list(TESTS.rglob("__init__.py"))
