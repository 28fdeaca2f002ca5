"""`torch.optim`: optimizers that update parameters from their gradients, bit for bit as
PyTorch's default CPU implementations do, and learning-rate schedulers."""
from . import lr_scheduler
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "lr_scheduler"]


def __getattr__(name):
    from .._not_implemented import missing
    raise missing("torch.optim", name)
