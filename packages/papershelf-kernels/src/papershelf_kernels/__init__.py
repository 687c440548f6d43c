"""Triton GPU kernels with PyTorch references for the papershelf packages.

Each op lives in its own subpackage (``reference.py`` the readable ground truth, ``_triton.py``
the kernel, ``__init__.py`` the dispatching entry point with per-dtype tolerances). Import the
op from its subpackage, e.g. ``from papershelf_kernels.neighborhood import na_forward``.
"""

from importlib.metadata import version as _version

from ._dispatch import has_triton, interpreting

__version__ = _version("papershelf-kernels")
__all__ = ["__version__", "has_triton", "interpreting"]
