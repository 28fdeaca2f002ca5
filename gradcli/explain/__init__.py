"""Why an autograd error happened (why.py: one explanation per error, from the engine's records)
and which fixes work (fixes.py: each tried on a copy of the script)."""
