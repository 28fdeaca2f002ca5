"""`gradcli test`: a folder of scripts as a regression suite (suite.py), and the pytest plugin."""
