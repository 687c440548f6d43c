"""Skip doctest collection of the torch extra when torch is not installed (torch-free test env)."""

import importlib.util

_TORCH_ONLY = ["src/wsm_tpp/torch_loss.py", "tests/verify_torch_loss.py"]
collect_ignore_glob = [] if importlib.util.find_spec("torch") else _TORCH_ONLY
