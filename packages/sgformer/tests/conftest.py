import torch

# the CI machine has 2 cores shared by several jobs: one intra-op thread is much faster there
torch.set_num_threads(1)
