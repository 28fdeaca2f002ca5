"""`torch.nn`: neural-network building blocks."""
from . import functional
from . import utils

__all__ = ["functional"]
