#!/bin/sh
# A separate venv (default .venv-upstream) with the upstream software the project talks to, at the
# exact releases in envs/upstream-constraints.txt, for tests that import it on a CPU-only machine:
#   - SGLang's server arguments, OpenAI protocol models and reasoning parsers (sglang, --no-deps);
#   - sglang-router's argument parsing (router + server command line);
#   - a TRL GRPO step on the CPU (trl, transformers, datasets, accelerate).
# sglang[all] pulls CUDA-only kernels (sglang-kernel, flashinfer, flash-attn-4, deep-gemm, ...) and
# torch 2.14.1; here sglang is installed without its dependencies and only what the imports above
# need is added, against the CPU build of torch 2.13.0. Never the project's main venv.
# Usage (from the checkout): sh envs/upstream.sh
set -eu

venv=${EXTREMBENCH_UPSTREAM_VENV:-.venv-upstream}
constraints="$(dirname "$0")/upstream-constraints.txt"

[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
pip="$venv/bin/pip"

# Wheels only: nothing here is built from source.
# 1. SGLang and the router alone: their declared dependencies are the GPU stack. pip's closing
#    "sglang 0.5.23 requires ..., which is not installed" lines in step 2 are expected.
"$pip" install --only-binary=:all: -c "$constraints" --no-deps sglang==0.5.23 sglang-router==0.3.2
# 2. torch (the CPU wheel on this machine's disk), what the SGLang/router imports need, and TRL's stack.
#    triton: sglang.srt.utils.common imports it at module level (the release torch 2.13.0 pairs with).
#    IPython, pillow, pyzmq, msgspec, ...: imported at module level by sglang.srt.server_args,
#    sglang.srt.entrypoints.openai.protocol and sglang.srt.parser.reasoning_parser.
#    setproctitle, aiohttp, orjson, uvicorn, fastapi: sglang-router's own dependencies.
#    math-verify, gmpy2: what extrembench.rl.reward imports (the GRPO test puts the checkout on
#    PYTHONPATH; the project itself is not installed here).
"$pip" install --only-binary=:all: -c "$constraints" \
  torch==2.13.0 triton \
  orjson pybase64 requests pillow msgspec pyzmq ipython aiohttp openai partial-json-parser \
  setproctitle uvicorn fastapi tokenizers python-dateutil httpx \
  transformers trl accelerate datasets \
  math-verify gmpy2

"$venv/bin/python" - <<'PY'
import argparse
from sglang.srt.server_args import ServerArgs
from sglang.srt.entrypoints.openai.protocol import ChatCompletionRequest
from sglang.srt.parser.reasoning_parser import ReasoningParser
from sglang_router.launch_router import RouterArgs, parse_router_args
import sglang_router.launch_server
from trl import GRPOConfig, GRPOTrainer
import sglang, torch, transformers, trl
print(f"upstream.sh: imports OK (sglang {sglang.__version__}, torch {torch.__version__}, "
      f"transformers {transformers.__version__}, trl {trl.__version__})")
PY
du -sh "$venv"
