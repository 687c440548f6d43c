import torch

# The CI machines are small and shared: one intra-op thread is much faster than oversubscription.
torch.set_num_threads(1)
