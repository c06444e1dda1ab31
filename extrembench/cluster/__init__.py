"""Cluster side: resources per job, plan and cost of a grid, GPU-hour ledger, preemption."""
