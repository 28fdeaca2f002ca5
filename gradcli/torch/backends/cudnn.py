"""`torch.backends.cudnn` on a CPU build: no cuDNN; benchmark, deterministic, enabled and
allow_tf32 are switches a script may set."""
import sys
import types

from ._flags import Flag


def is_available():
    return False


def version():
    return None


def is_acceptable(tensor):
    return False


class CudnnModule(types.ModuleType):
    enabled = Flag("set_enabled_cudnn", True)
    benchmark = Flag("set_benchmark_cudnn", False)
    deterministic = Flag("set_deterministic_cudnn", False)
    allow_tf32 = Flag("set_allow_tf32_cublas", True)


sys.modules[__name__].__class__ = CudnnModule
