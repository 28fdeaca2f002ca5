"""The default resource limits every front end applies to a script (each has a command-line option)."""

DEFAULT_MAX_ELEMENTS = 200_000_000       # 800 MB of float32 in one tensor: safe on a 24 GiB machine
DEFAULT_MAX_MEMORY_GB = 8.0              # all live tensor data together
FULL_VALUES = 1000                       # --full-values: the largest tensor whose values --json writes in full
DEFAULT_MAX_SOURCE_KIB = 1024            # --max-source: the longest script parsed (executor.MAX_SOURCE)
MAX_MEMORY_GB = 2 ** 33                  # 2**63 bytes: a count of bytes must fit in 64 bits
