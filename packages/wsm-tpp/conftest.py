"""Skip doctest collection of the torch extra when torch is not installed (torch-free test env)."""

import importlib.util

collect_ignore_glob = [] if importlib.util.find_spec("torch") else ["src/wsm_tpp/torch_loss.py"]
