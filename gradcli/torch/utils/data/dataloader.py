"""DataLoader and default_collate, as PyTorch's: each pass over the loader first draws a base
seed from the global stream (PyTorch's workers' seed, drawn even with no worker), then the
sampler draws its own when the first batch is asked for. Loading always happens in the
script's process: with num_workers > 0 the batches and their order are PyTorch's (its workers
deliver in order), but random numbers drawn inside a worker are not reproduced."""
import collections.abc
import copy

import numpy as np

from ....engine import TensorBase, shown_as_pytorch
from ....engine import TorchRuntimeError, TorchTypeError, TorchValueError
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler

_COLLATE_ERROR = "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"


def _torch():
    from .... import torch
    return torch


def get_worker_info():
    return None


def default_collate(batch):
    """Stack tensors, make tensors of numbers (Python floats as float64), and recurse into
    dicts, named tuples and sequences (a tuple of columns becomes a list)."""
    torch = _torch()
    elem = batch[0]
    elem_type = type(elem)
    if isinstance(elem, TensorBase):
        return torch.stack(batch, 0)
    if isinstance(elem, np.ndarray):
        if elem.dtype.kind in "SaUO":
            raise TorchTypeError(_COLLATE_ERROR.format(elem.dtype))
        return default_collate([torch.as_tensor(b) for b in batch])
    if isinstance(elem, (np.bool_, np.number)):
        return torch.as_tensor(np.array(batch))
    if isinstance(elem, float):
        return torch.tensor(batch, dtype=torch.float64)
    if isinstance(elem, int):
        return torch.tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        values = {key: default_collate([d[key] for d in batch]) for key in elem}
        if isinstance(elem, collections.abc.MutableMapping):
            clone = copy.copy(elem)
            clone.update(values)
            return clone
        return elem_type(values)
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return elem_type(*(default_collate(samples) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        elem_size = len(next(it))
        if not all(len(e) == elem_size for e in it):
            raise TorchRuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        if isinstance(elem, tuple):
            return [default_collate(samples) for samples in transposed]
        if isinstance(elem, collections.abc.MutableSequence):
            clone = copy.copy(elem)
            for i, samples in enumerate(transposed):
                clone[i] = default_collate(samples)
            return clone
        return elem_type([default_collate(samples) for samples in transposed])
    raise TorchTypeError(_COLLATE_ERROR.format(elem_type))


def default_convert(data):
    """Without batching: NumPy arrays become tensors, containers are converted inside."""
    torch = _torch()
    if isinstance(data, TensorBase):
        return data
    if isinstance(data, np.ndarray) and data.dtype.kind not in "SaUO":
        return torch.as_tensor(data)
    if isinstance(data, (np.bool_, np.number)):
        return torch.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return type(data)({key: default_convert(data[key]) for key in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return type(data)([default_convert(d) for d in data])
    return data


class DataLoader:
    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=None, persistent_workers=False,
                 pin_memory_device="", in_order=True):
        if num_workers < 0:
            raise TorchValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                                  "multiprocessing.")
        if timeout < 0:
            raise TorchValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise TorchValueError("prefetch_factor option could only be specified in multiprocessing.let num_workers "
                                  "> 0 to enable multiprocessing, otherwise set prefetch_factor to None.")
        if num_workers > 0 and prefetch_factor is not None and prefetch_factor < 0:
            raise TorchValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise TorchValueError("persistent_workers option needs num_workers > 0")
        self.dataset = dataset
        self.num_workers = num_workers
        self.timeout = timeout
        self.generator = generator
        iterable = isinstance(dataset, IterableDataset)
        if iterable:
            if isinstance(shuffle, bool) and shuffle:
                raise TorchValueError(f"DataLoader with IterableDataset: expected unspecified shuffle option, "
                                      f"but got shuffle={shuffle}")
            if sampler is not None:
                raise TorchValueError(f"DataLoader with IterableDataset: expected unspecified sampler option, "
                                      f"but got sampler={sampler}")
            if batch_sampler is not None:
                raise TorchValueError(f"DataLoader with IterableDataset: expected unspecified batch_sampler "
                                      f"option, but got batch_sampler={batch_sampler}")
        else:
            shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise TorchValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise TorchValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, "
                                      "sampler, and drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise TorchValueError("batch_size=None option disables auto-batching and is mutually exclusive with "
                                  "drop_last")
        if sampler is None and not iterable:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None and not iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self._iterable = iterable
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None or (self._iterable and self.batch_size is not None)

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def __iter__(self):
        return _DataLoaderIter(self)

    def __len__(self):
        if self._iterable:
            n = len(self.dataset)
            if self.batch_size is not None:
                n = n // self.batch_size if self.drop_last else -(-n // self.batch_size)
            return n
        return len(self._index_sampler)


shown_as_pytorch(DataLoader)


class _DataLoaderIter:
    def __init__(self, loader):
        torch = _torch()
        self._loader = loader
        self._dataset = loader.dataset
        self._collate_fn = loader.collate_fn
        self._auto_collation = loader._auto_collation
        if loader._iterable:
            self._dataset_iter = iter(loader.dataset)
            self._sampler_iter = None
        else:
            self._sampler_iter = iter(loader._index_sampler)
        self._base_seed = torch.empty((), dtype=torch.int64).random_(generator=loader.generator).item()
        self._num_yielded = 0

    def __iter__(self):
        return self

    def __len__(self):
        return len(self._loader)

    def __next__(self):
        loader = self._loader
        if loader._iterable:
            if self._auto_collation:
                batch = []
                for item in self._dataset_iter:
                    batch.append(item)
                    if len(batch) == loader.batch_size:
                        break
                if not batch or (loader.drop_last and len(batch) < loader.batch_size):
                    raise StopIteration
                data = self._collate_fn(batch)
            else:
                data = self._collate_fn(next(self._dataset_iter))
        else:
            index = next(self._sampler_iter)
            if self._auto_collation:
                getitems = getattr(self._dataset, "__getitems__", None)
                data = getitems(index) if getitems is not None else [self._dataset[i] for i in index]
            else:
                data = self._dataset[index]
            data = self._collate_fn(data)
        self._num_yielded += 1
        return data
