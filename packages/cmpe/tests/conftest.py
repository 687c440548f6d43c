"""One torch thread: the suite's tensors are tiny, and intra-op threads only contend on a loaded
2-core machine."""

import torch

torch.set_num_threads(1)


def close(actual, desired, *, rtol, atol=0.0):
    """numpy's assert_allclose on tensors (torch.testing imports its distributed-tensor support,
    seconds on a loaded machine)."""
    import numpy as np

    def arr(x):
        return x.detach().cpu().numpy() if isinstance(x, torch.Tensor) else np.asarray(x)

    np.testing.assert_allclose(arr(actual), arr(desired), rtol=rtol, atol=atol)
