"""torch.save and torch.load as PyTorch 2.13's defaults behave, for checkpoints a script saves
and loads itself: load is always weights_only, and it never runs code from the file. Its
unpickler makes only tensors, numbers, strings, bytes, containers, OrderedDict, Counter, set,
dtypes, sizes and devices; anything else is refused with PyTorch's weights_only error.

A file is a header, a pickle (protocol 2, as PyTorch writes) of the storages' dtype names and
sizes, their bytes, then a pickle of the object, whose tensors, dtypes, sizes and devices are
persistent ids.
Tensors that shared memory when saved share it when loaded, as PyTorch's storages do."""
import _compat_pickle
import builtins
import io
import operator
import os
import pickle

import numpy as np

from .. import engine as _E
from ..engine import TorchAttributeError, TorchNotImplementedError, TorchRuntimeError, TorchTypeError, TensorBase
from ..engine.errors import _make
from ._legacy import device

_MAGIC = b"gradcli checkpoint 1\n"
_PROTOCOL = 2
_ALLOWED = {("collections", "OrderedDict"), ("collections", "Counter"), ("builtins", "set"),
            ("builtins", "complex"), ("builtins", "bytearray"), ("_codecs", "encode")}
# printed by its module, as Python prints pickle's own: _pickle.UnpicklingError
TorchUnpicklingError = _make("TorchUnpicklingError", pickle.UnpicklingError)
TorchUnpicklingError.pytype, TorchUnpicklingError.__module__ = "_pickle.UnpicklingError", "_pickle"
TorchPicklingError = _make("TorchPicklingError", pickle.PicklingError)
TorchPicklingError.pytype, TorchPicklingError.__module__ = "_pickle.PicklingError", "_pickle"
TorchEOFError = _make("TorchEOFError", EOFError)
_SAFE_GLOBAL = ("Unsupported global: GLOBAL {0} was not an allowed global by default. Please use "
                "`torch.serialization.add_safe_globals([{0}])` or the `torch.serialization.safe_globals([{0}])` "
                "context manager to allowlist this global if you trust this class/function.")


def _weights_only_error(message):
    return TorchUnpicklingError(
        "Weights only load failed. This file can still be loaded, to do so you have two options, \x1b[1mdo those "
        "steps only if you trust the source of the checkpoint\x1b[0m. \n\t(1) In PyTorch 2.6, we changed the "
        "default value of the `weights_only` argument in `torch.load` from `False` to `True`. Re-running "
        "`torch.load` with `weights_only` set to `False` will likely succeed, but it can result in arbitrary code "
        "execution. Do it only if you got the file from a trusted source.\n\t(2) Alternatively, to load with "
        "`weights_only=True` please check the recommended steps in the following error message.\n\tWeightsUnpickler "
        f"error: {message}\n\nCheck the documentation of torch.load to learn more about types accepted by default "
        "with weights_only https://pytorch.org/docs/stable/generated/torch.load.html.")


# ----------------------------------------------------------------------------- save

class _Pickler(pickle.Pickler):
    def __init__(self, file):
        super().__init__(file, protocol=_PROTOCOL)
        self.storages = []              # (dtype name, bytes)
        self._storage_keys = {}         # id(root array) -> its index

    def persistent_id(self, obj):
        from . import Size, device
        if isinstance(obj, TensorBase):
            return self._tensor_id(obj)
        if isinstance(obj, _E.DType):
            return ("dtype", obj.name)
        if isinstance(obj, Size):
            return ("size", tuple(obj))
        if isinstance(obj, device):
            return ("device", str(obj))
        return None

    def _tensor_id(self, t):
        from .nn import Parameter
        data = t._data
        root = data
        while isinstance(root.base, np.ndarray):
            root = root.base
        if root.dtype != data.dtype or not root.flags.c_contiguous:
            root = data = np.ascontiguousarray(data)
        key = self._storage_keys.get(id(root))
        if key is None:
            key = self._storage_keys[id(root)] = len(self.storages)
            self.storages.append((data.dtype.name, root.tobytes(), root))      # (root kept alive: its id)
        offset = data.__array_interface__["data"][0] - root.__array_interface__["data"][0]
        return ("tensor", key, offset, data.shape, data.strides, bool(t.requires_grad), isinstance(t, Parameter))


def save(obj, f, pickle_module=pickle, pickle_protocol=2, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
    if pickle_module is not None:           # (torch.save reads pickle_module.__name__ first: dill's check)
        _attribute(pickle_module, "__name__")
    if isinstance(f, (str, os.PathLike)):
        with _opened(f, "wb") as file:
            return save(obj, file, pickle_module, pickle_protocol)
    if not hasattr(f, "write"):
        raise TorchAttributeError("expected 'f' to be string, path, or a file-like object with a 'write' attribute")
    _attribute(pickle_module, "Pickler")
    try:
        operator.index(pickle_protocol)
    except TypeError as e:
        raise TorchTypeError(str(e)) from None
    body = io.BytesIO()
    pickler = _Pickler(body)
    try:
        pickler.dump(obj)
    except pickle.PicklingError as e:       # (what the script gave cannot be pickled: its error)
        raise TorchPicklingError(str(e)) from None
    f.write(_MAGIC)
    pickle.dump([(name, len(data)) for name, data, _ in pickler.storages], f, protocol=_PROTOCOL)
    for _, data, _ in pickler.storages:
        f.write(data)
    f.write(body.getvalue())


# ----------------------------------------------------------------------------- load

class _Unpickler(pickle.Unpickler):
    def __init__(self, file, storages=()):
        super().__init__(file)
        self.storages = storages

    def find_class(self, module, name):
        # protocol 2 names Python 2's modules, as pickle.Unpickler maps them back
        module, name = _compat_pickle.NAME_MAPPING.get((module, name), (module, name))
        module = _compat_pickle.IMPORT_MAPPING.get(module, module)
        if (module, name) in _ALLOWED:
            return super().find_class(module, name)
        qualified = name if module == "builtins" else f"{module.removeprefix('gradcli.')}.{name}"
        raise _weights_only_error(_SAFE_GLOBAL.format(qualified))

    def persistent_load(self, pid):
        from . import Size, device
        kind, *args = pid
        if kind == "tensor":
            return _tensor(self.storages, *args)
        if kind == "dtype":
            return _dtype(args[0])
        if kind == "size":
            return Size(args[0])
        if kind == "device":
            return device(args[0])
        raise _weights_only_error(f"Unsupported persistent id {kind!r}")


def _dtype(name):
    from .. import torch
    value = getattr(torch, name, None)
    if not isinstance(value, _E.DType):
        raise _weights_only_error(f"Unsupported dtype {name!r}")
    return value


def _tensor(storages, key, offset, shape, strides, requires_grad, parameter):
    buffer = storages[key]
    data = _view(buffer, offset, tuple(shape), tuple(strides))
    t = _E.CONFIG.tensor(data)
    if parameter:
        from .nn import Parameter
        return Parameter(t, requires_grad)
    if requires_grad:
        t.requires_grad_(True)
    return t


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **pickle_load_args):
    if weights_only is False:
        raise TorchNotImplementedError("gradcli does not implement torch.load(weights_only=False): it would run "
                                       "code from the file")
    if pickle_module is not None:
        _attribute(pickle_module, "__name__")
    if isinstance(f, (str, os.PathLike)):
        with _opened(f, "rb") as file:
            return load(file, map_location)
    try:
        f.seek(f.tell())
    except AttributeError as e:
        raise TorchAttributeError(f"{e}. You can only torch.load from a file that is seekable. Please pre-load the "
                                  "data into a buffer like io.BytesIO and try to load from it instead.") from None
    header = f.read(len(_MAGIC))
    if not header:
        raise TorchEOFError()
    if header != _MAGIC:
        raise TorchNotImplementedError("gradcli does not implement torch.load of a file that torch.save under "
                                       "gradcli did not write (yet)")
    try:
        storages = [_storage(f, *entry) for entry in _Unpickler(f).load()]
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError) as e:
        raise e if isinstance(e, TorchUnpicklingError) else _weights_only_error(str(e)) from None
    for storage in storages:
        _restore(storage, map_location)
    try:
        return _Unpickler(f, storages).load()
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError) as e:
        raise e if isinstance(e, TorchUnpicklingError) else _weights_only_error(str(e)) from None


def _view(buffer, offset, shape, strides):
    """The tensor's elements in its storage, checked to lie inside it."""
    itemsize = buffer.itemsize
    if len(shape) != len(strides) or any(n < 0 for n in shape) or any(s % itemsize for s in strides + (offset,)):
        raise _weights_only_error("a tensor's geometry does not fit its storage")
    if 0 in shape:
        return np.zeros(shape, buffer.dtype)
    low = offset + sum((n - 1) * s for n, s in zip(shape, strides) if s < 0)
    high = offset + sum((n - 1) * s for n, s in zip(shape, strides) if s > 0)
    if low < 0 or high + itemsize > buffer.nbytes:
        raise _weights_only_error("a tensor's elements lie outside its storage")
    return np.lib.stride_tricks.as_strided(buffer[offset // itemsize:], shape, strides)


_DTYPES = {"float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8", "bool"}


def _storage(f, dtype_name, nbytes):
    if dtype_name not in _DTYPES or type(nbytes) is not int:
        raise _weights_only_error(f"Unsupported storage of {dtype_name!r}")
    data = f.read(nbytes)
    if len(data) != nbytes:
        raise _weights_only_error("the file ends inside a storage")
    return np.frombuffer(bytearray(data), dtype=np.dtype(dtype_name))


def _attribute(obj, name):
    """getattr, whose AttributeError is the script's (torch.save(x, f, 'abc'): 'str' object has no
    attribute '__name__')."""
    try:
        return getattr(obj, name)
    except AttributeError as e:
        raise TorchAttributeError(str(e)) from None


def _opened(path, mode):
    """The file a script names, or the script's own OSError (FileNotFoundError, ...)."""
    try:
        return builtins.open(path, mode)
    except OSError as e:
        raise _OS_ERRORS.setdefault(type(e), _make("Torch" + type(e).__name__, type(e)))(str(e)) from None


_OS_ERRORS = {}
_CUDA_STORAGE = ("Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. If you "
                 "are running on a CPU-only machine, please use torch.load with map_location=torch.device('cpu') to "
                 "map your storages to the CPU.")


def _restore(storage, map_location):
    """What torch.load's map_location does with a storage saved on the CPU (its location "cpu")."""
    if map_location is None or isinstance(map_location, dict):
        return
    if isinstance(map_location, (str, device)):
        where = str(map_location)
        if where in ("cpu", "meta") or where.startswith("meta:"):
            return
        if where.split(":")[0] == "cuda":
            raise TorchRuntimeError(_CUDA_STORAGE)
        if where.split(":")[0] in ("mps", "xpu", "hpu", "mtia"):
            raise TorchRuntimeError(f"torch.UntypedStorage(): Storage device not recognized: {where}")
        raise TorchRuntimeError(f"don't know how to restore data location of torch.storage.UntypedStorage (tagged "
                                f"with {where})")
    if not callable(map_location):
        kind = type(map_location)
        name = kind.__name__ if kind.__module__ in ("builtins", "torch") else f"{kind.__module__}.{kind.__qualname__}"
        raise TorchTypeError(f"'{name}' object is not callable")
    map_location(storage, "cpu")            # (what it returns for a CPU storage: the storage, or None)
