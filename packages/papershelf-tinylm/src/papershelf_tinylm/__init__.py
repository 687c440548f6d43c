"""Small Llama-architecture causal LMs trained offline in about a minute, cached on disk, for tests and reproductions."""

from importlib.metadata import version as _version

__version__ = _version("papershelf-tinylm")
__all__ = ["__version__"]
