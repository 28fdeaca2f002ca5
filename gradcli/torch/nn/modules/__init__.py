"""The module classes of torch.nn, one file per family as in PyTorch."""
from .module import Module
from .container import Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict
from .linear import Identity, Linear, Bilinear
from .flatten import Flatten, Unflatten
from .activation import ReLU, LeakyReLU, ELU, GELU, Tanh, Sigmoid, Softmax, LogSoftmax, Softplus
from .loss import (L1Loss, MSELoss, SmoothL1Loss, HuberLoss, CrossEntropyLoss, NLLLoss, BCELoss,
                   BCEWithLogitsLoss, KLDivLoss)
from .sparse import Embedding
from .dropout import Dropout, Dropout1d, Dropout2d
from .normalization import LayerNorm
from .rnn import RNNBase, RNN, LSTM, GRU, RNNCellBase, RNNCell, LSTMCell, GRUCell
from .conv import Conv1d, Conv2d
from .pooling import MaxPool2d, AvgPool2d
from .batchnorm import BatchNorm1d, BatchNorm2d
