"""Running the grid: `extrembench plan` (cost before submitting), `extrembench eval`, the end-of-run summary."""
