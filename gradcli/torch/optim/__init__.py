"""`torch.optim`: optimizers that update parameters from their gradients, bit for bit as
PyTorch's default CPU implementations do, and learning-rate schedulers."""
from . import lr_scheduler
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .adamax import Adamax
from .asgd import ASGD
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam",
           "Rprop", "ASGD", "lr_scheduler"]


def __getattr__(name):
    from .._not_implemented import missing
    raise missing("torch.optim", name)
