"""gradcli's own version (the package exports it as gradcli.__version__; PyTorch's, which gradcli
reproduces, is gradcli.torch.__version__)."""
__version__ = "0.1.0"
