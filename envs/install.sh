#!/bin/sh
# Install extrembench into a venv (default .venv) with the given extras, e.g. `sh envs/install.sh cpu,test`.
#
# Why a script and not one `pip install`: llama-cpp-python has no wheels on the index and builds
# from source, and pip reuses a wheel it built earlier *whatever the build flags were*. A wheel
# built natively (e.g. with AVX-512 on a login node, or by an install that did not set CMAKE_ARGS)
# sits in the user's pip cache and pip silently installs it here; on a machine whose CPU cannot run
# it, the llama.cpp server dies with SIGSEGV/SIGILL on its first completion. So that one package is
# built with the flags below and cached in a folder of its own, keyed by version and flags, which
# only this script writes: a cache that can only hold wheels built this way is safe to reuse.
# Cost: the first install builds it (about 7 minutes on 2 cores); every later fresh venv takes the
# wheel from that cache (seconds). Everything else uses the normal pip cache.
#
# A marker in the venv records how its llama-cpp-python was built: a venv whose copy came from
# anywhere else (an older install, another cache) gets it rebuilt from the safe cache.
set -eu

extras=${1:-cpu}
venv=${EXTREMBENCH_VENV:-.venv}
pip="$venv/bin/pip"
[ -x "$pip" ] || { echo "install.sh: no venv at $venv (create it with: python3 -m venv $venv)" >&2; exit 1; }

case ",$extras," in
  *,cpu,*)
    # The pin must equal pyproject.toml's `cpu` extra (tests/test_envs.py checks it).
    llama='llama-cpp-python[server]==0.3.36'
    # AVX2/FMA/F16C: what every x86-64 server of the last decade runs; never the build machine's own.
    flags='-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON'
    stamp="$llama $flags"
    key=$(printf '%s' "$stamp" | python3 -c 'import hashlib, sys; print(hashlib.sha256(sys.stdin.buffer.read()).hexdigest()[:16])')
    cache="${XDG_CACHE_HOME:-$HOME/.cache}/extrembench/llama-cpp-python-$key"
    marker="$venv/extrembench-llama-cpp-build.txt"
    if [ "$(cat "$marker" 2>/dev/null || true)" != "$stamp" ]; then
      echo "install.sh: building $llama with CMAKE_ARGS=\"$flags\" (cache: $cache; the first build takes minutes)"
      # Only this package, reinstalled whatever the venv holds; its dependencies come with the project below.
      PIP_CACHE_DIR="$cache" CMAKE_ARGS="$flags" "$pip" install --force-reinstall --no-deps "$llama"
      printf '%s\n' "$stamp" > "$marker"
    fi
    ;;
esac

# The numeric stack at the exact releases envs/pipeline.yaml pins (pyproject.toml only has floors):
# another release can change which proof a check finds, so the benchmark's bytes would drift.
"$pip" install -c "$(dirname "$0")/numeric-constraints.txt" -e ".[$extras]"
