"""The interactive REPL: `gradcli repl`, and `gradcli` alone on a terminal."""
