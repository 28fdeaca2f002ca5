"""`gradcli test`: a folder of scripts as a regression suite (suite.py), the pytest plugin, and the
PyTorch oracle (oracle.py: a script run under real PyTorch, compared with gradcli's run)."""
