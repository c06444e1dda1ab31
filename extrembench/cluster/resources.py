"""What each job asks the cluster for, from the config's size classes (rules/common.smk calls this).

The keys returned are snakemake-executor-plugin-slurm's resource names; the local executor
ignores the SLURM-only ones. A GPU request never carries `cpus_per_task`: the plugin lets it
override `cpus_per_gpu` (its documented behaviour).
"""

from __future__ import annotations

from typing import Any

from extrembench.core.config import Cluster, Resources
from extrembench.core.errors import InputError

# A job killed for time or memory reruns with this factor per extra attempt (1×, 2×, 4×, …).
GROWTH_PER_ATTEMPT = 2


class ResourceError(InputError, ValueError):
    """A size class that would submit a wrong request; the message names the key and the fix."""


def scaled(value: int, attempt: int) -> int:
    """`value` for the first attempt, doubled for each retry."""
    if attempt < 1:
        raise ValueError(f"attempt must be >= 1, got {attempt}")
    return value * GROWTH_PER_ATTEMPT ** (attempt - 1)


def job_request(size_class: str, size: Resources, cluster: Cluster, attempt: int) -> dict[str, Any]:
    """The resources of one job of size class `size_class` (an entry of config `resources`).

    The partition is the class's own `partition`, else `cluster.gpu_partition` for GPU classes and
    `cluster.cpu_partition` for the rest; None values are dropped by Snakemake (plugin default).
    """
    gpus = size.gpu
    request: dict[str, Any] = {
        "mem_mb": scaled(size.mem_mb, attempt),
        "runtime": scaled(size.runtime, attempt),
        "gpu": gpus,
    }
    if gpus:
        if size.cpus_per_task:
            raise ResourceError(
                f"resources.{size_class}.cpus_per_task: a GPU class (gpu: {gpus}) must not set cpus_per_task, "
                "which overrides cpus_per_gpu in the SLURM plugin; set resources."
                f"{size_class}.cpus_per_gpu instead"
            )
        request["gpu_model"] = size.gpu_model
        request["cpus_per_gpu"] = size.cpus_per_gpu
        request["slurm_partition"] = size.partition or cluster.gpu_partition
    else:
        request["cpus_per_task"] = size.cpus_per_task
        request["slurm_partition"] = size.partition or cluster.cpu_partition
    return request
