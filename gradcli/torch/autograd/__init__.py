"""`torch.autograd`: gradients of outputs with respect to inputs, and anomaly detection."""
from ...engine import backward, grad
from .. import _set_detect_anomaly as set_detect_anomaly, _detect_anomaly as detect_anomaly

__all__ = ["backward", "grad", "set_detect_anomaly", "detect_anomaly"]

from .. import _signatures  # noqa: E402

_signatures.install(globals(), "autograd")
