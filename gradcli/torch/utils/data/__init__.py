"""`torch.utils.data`: datasets, samplers and the single-process DataLoader, drawing from the
random stream exactly as PyTorch's do, so a loop sees PyTorch's batches in PyTorch's order."""
from .dataloader import DataLoader, default_collate, default_convert, get_worker_info
from .dataset import ConcatDataset, Dataset, IterableDataset, Subset, TensorDataset, random_split
from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler,
                      WeightedRandomSampler)

__all__ = ["DataLoader", "default_collate", "default_convert", "get_worker_info", "Dataset", "IterableDataset",
           "TensorDataset", "ConcatDataset", "Subset", "random_split", "Sampler", "SequentialSampler",
           "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler", "BatchSampler"]


def __getattr__(name):
    from ..._not_implemented import missing
    raise missing("torch.utils.data", name)
