"""`torch.backends.mps`: Apple's Metal backend, absent from a CPU build."""


def is_available():
    return False


def is_built():
    return False
