"""`torch.nn.utils.rnn`: padding a batch of variable-length sequences, as PyTorch's
pad_sequence (torch/nn/utils/rnn.py and ATen's PackedSequence.cpp)."""
from collections.abc import Iterable

from ....engine import TorchRuntimeError

__all__ = ["pad_sequence"]


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    from .... import torch
    if not isinstance(sequences, Iterable):
        raise TorchRuntimeError("pad_sequence: Expected iterable for input sequences, but got arg of type: "
                                f"{type(sequences)}")
    sequences = tuple(sequences)
    if not sequences:
        raise TorchRuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise TorchRuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    max_len = max(s.size(0) for s in sequences)
    trailing = tuple(sequences[0].shape[1:])
    dims = (len(sequences), max_len) if batch_first else (max_len, len(sequences))
    out = torch.full(dims + trailing, padding_value, dtype=sequences[0].dtype)
    for i, seq in enumerate(sequences):
        length = seq.size(0)
        start = max_len - length if padding_side == "left" else 0
        if batch_first:
            out.select(0, i).narrow(0, start, length).copy_(seq)
        else:
            out.narrow(0, start, length).select(1, i).copy_(seq)
    return out


def __getattr__(name):
    from ..._not_implemented import missing
    raise missing("torch.nn.utils.rnn", name)
