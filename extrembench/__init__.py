"""extrembench: build extremal-problem benchmarks and evaluate reasoning LLMs on them."""

__version__ = "0.1.0"
