"""pytest: skip collecting the torch extra's module (doctests) where torch is not installed."""

import importlib.util

collect_ignore_glob = [] if importlib.util.find_spec("torch") else ["src/weiper/torch.py"]
