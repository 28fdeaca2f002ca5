"""`torch.cuda` as PyTorch's CPU build has it: no device, and an error for anything that needs one."""
from ..engine import TorchAssertionError

_NO_CUDA = "Torch not compiled with CUDA enabled"


def is_available():
    return False


def device_count():
    return 0


def is_initialized():
    return False


def manual_seed(seed):
    """Seeds nothing on a CPU build (PyTorch queues it until CUDA starts, which it never does)."""
    return None


manual_seed_all = manual_seed


def empty_cache():
    return None


def _lazy_init(*args, **kwargs):
    raise TorchAssertionError(_NO_CUDA)


current_device = get_device_name = get_device_properties = synchronize = set_device = _lazy_init
