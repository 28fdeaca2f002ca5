"""gradcli: see PyTorch's autograd machinery at work, on a NumPy engine that behaves like PyTorch 2.13."""
__version__ = "0.1.0"
