"""{{description}}"""

from importlib.metadata import version as _version

__version__ = _version("{{name}}")
__all__ = ["__version__"]
