"""One torch thread: the suite's tensors are tiny, and intra-op threads only contend on a loaded
2-core machine."""

import torch

from papershelf_harness.testing import assert_close as close  # noqa: F401 (tests import it)

torch.set_num_threads(1)
