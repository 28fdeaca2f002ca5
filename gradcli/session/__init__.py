"""Running a script: `torch` resolved to gradcli (importer), the executor and its Report, where each
node came from (origin), the engine's records kept for explanations (records), limits and the watchdog,
the files gradcli reads (sourcefile) and writes (atomic), and the PyTorch oracle."""
