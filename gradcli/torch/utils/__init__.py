"""`torch.utils`: data loading (torch.utils._data)."""
from . import data

__all__ = ["data"]
