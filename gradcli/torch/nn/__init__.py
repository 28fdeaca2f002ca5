"""`torch.nn`: neural-network building blocks."""
from .parameter import Parameter
from . import functional, init, modules, utils
from .modules import *  # noqa: F401,F403

__all__ = ["Parameter", "functional", "init", "utils"] + [n for n in vars(modules) if n[:1].isupper()]


def __getattr__(name):
    from .._not_implemented import missing
    raise missing("torch.nn", name)
