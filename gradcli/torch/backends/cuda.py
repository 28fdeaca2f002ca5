"""`torch.backends.cuda` on a CPU build: not built; the cuBLAS matmul switches may be set."""
from ...engine import TorchAttributeError
from ._flags import Flag


def is_built():
    return False


class cuBLASModule:
    allow_tf32 = Flag("set_allow_tf32_cublas", False)
    allow_fp16_reduced_precision_reduction = Flag("set_allow_fp16_reduction_cublas", True)

    def __getattr__(self, name):
        raise TorchAttributeError(f"Unknown attribute {name}")


matmul = cuBLASModule()
