"""pytest: skip collecting the extras' modules (doctests) where torch / gymnasium are missing."""

import importlib.util

collect_ignore_glob = [
    f"src/dispo_rl/{module}"
    for module, dist in (
        ("_torch_models.py", "torch"),
        ("_optim.py", "torch"),
        ("_gym.py", "gymnasium"),
    )
    if importlib.util.find_spec(dist) is None
]
