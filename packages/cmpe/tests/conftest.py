"""One torch thread: the suite's tensors are tiny, and intra-op threads only contend on a loaded
2-core machine."""

import torch

torch.set_num_threads(1)
