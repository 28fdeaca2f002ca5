"""A package's names, each loaded with its module on first use (a module `__getattr__`, PEP 562)."""
import sys
from importlib import import_module


def lazy_names(package, modules):
    """The `__getattr__` of `package` for `modules`, {module: "name name ..."} (a module's own name
    stands for the module itself): it imports a name's module on its first use and keeps the value
    in the package, which Python reads from then on."""
    where = {name: module for module, names in modules.items() for name in names.split()}
    namespace = vars(sys.modules[package])

    def __getattr__(name):
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        loaded = import_module("." + module, package)
        value = loaded if module == name else getattr(loaded, name)
        namespace[name] = value
        return value
    return __getattr__
