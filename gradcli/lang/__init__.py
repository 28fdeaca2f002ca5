"""The concise dialect: source text -> the grammar's typed AST -> a Python `ast.Module` (dialect.py),
the statements' source text (statements.py), and the Pygments lexer the REPL highlights with."""
