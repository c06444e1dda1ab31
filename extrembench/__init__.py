"""extrembench: build extremal-problem benchmarks and evaluate reasoning LLMs on them."""

from extrembench.core.float_path import pin_float_path

# first, before any module loads numpy: the validator's one float path (extrembench/verify/blas.py)
pin_float_path()

__version__ = "0.1.0"
