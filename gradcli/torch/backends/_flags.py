"""A backend's boolean switch: settable to a bool only, as PyTorch's ContextProp."""
from ...engine import TorchRuntimeError


class Flag:
    def __init__(self, setter_name, value):
        self.setter_name, self.value = setter_name, value

    def __get__(self, obj, objtype=None):
        return self.value

    def __set__(self, obj, value):
        if not isinstance(value, bool):
            raise TorchRuntimeError(f"{self.setter_name} expects a bool, but got {type(value).__name__}")
        self.value = value
