"""Progressive exploration-conformal pseudo-label selection for sparsely annotated oriented object detection: sparsifier, exact rotated-box IoU, VOC AP, conformal clue, multi-clue reward and a DDPG explorer."""

from importlib.metadata import version as _version

__version__ = _version("pecl-detect")
__all__ = ["__version__"]
