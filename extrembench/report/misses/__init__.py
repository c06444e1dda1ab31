"""How models miss: one class per graded sample, the misses table and figure, the misses rule's job."""
