"""crfm-helm's per-request rule restated one request at a time: the slow reference that the tests
and bench.py compare :meth:`CostModel.runtime` against (not part of the public API)."""

from __future__ import annotations


def helm_loop_runtime(entry: dict, ps, os_) -> list[float]:
    """Runtimes of requests ``zip(ps, os_)`` from one HELM JSON ``entry``, as HELM computes them:
    parse the table, scan the sorted prompt sizes for the smallest ``>= p`` (else the largest),
    scale by ``p / key``, add ``beta (o - 1)`` if ``o > 0`` and the overhead if present."""
    out = []
    for p, o in zip(ps, os_, strict=True):
        table = {int(k): v for k, v in entry["runtime_for_prompt_tokens"].items()}
        prompt = None
        for key in sorted(table):
            if p <= key:
                prompt = table[key] * (p / key)
                break
        if prompt is None:
            largest = max(table)
            prompt = table[largest] * (p / largest)
        t = prompt
        if o > 0:
            t += entry["runtime_per_output_token"] * (o - 1)
        if entry.get("overhead") is not None:
            t += entry["overhead"]
        out.append(t)
    return out
