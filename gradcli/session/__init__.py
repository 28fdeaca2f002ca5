"""Running a script: `torch` resolved to gradcli (importer), the executor that runs it and fills
its Report, limits and the watchdog, `--set` values, and the files gradcli reads (sourcefile)
and writes (atomic)."""
