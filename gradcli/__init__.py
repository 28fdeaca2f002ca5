"""gradcli: see PyTorch's autograd machinery at work, on a NumPy engine that behaves like PyTorch 2.13."""
from .version import __version__  # noqa: F401


def load_ipython_extension(shell):
    """`%load_ext gradcli` in Jupyter/IPython: the %%gradcli magic and inline graphs (gradcli/notebook.py)."""
    from .notebook import load_ipython_extension as load
    load(shell)


def show(*tensors):
    """The backward graph behind tensors, drawn inline in a notebook (SVG)."""
    from .notebook import show as graph
    return graph(*tensors)
