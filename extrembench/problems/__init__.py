"""The problem model: problem files and their YAML, expressions, statements, the LaTeX reader, duplicates."""
