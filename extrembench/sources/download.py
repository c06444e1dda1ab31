"""Download a registered dataset at its pinned revision and verify every file's sha256.

Each file comes from the Hugging Face Hub when the registry maps it to a Hub path and a commit sha
is known (from the registry or the `revision` argument), otherwise from its pinned git mirror
(a raw URL at a fixed commit). `huggingface_hub` is used when installed; without it the file is
fetched over plain HTTPS from https://huggingface.co/datasets/<id>/resolve/<revision>/<path>.
Every file is streamed to a temporary name, hashed, and only renamed into place when the hash
matches; a mismatch raises ChecksumError with both hashes. Usage:

    python -m extrembench.sources.download math500 data/external/math500 --revision <commit sha>
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from extrembench.core.files import atomic_output, sha256_file
from extrembench.sources.ingest import (
    DATASETS,
    SHARED_DATA_ENV,
    ChecksumError,
    DatasetError,
    DatasetSpec,
    dataset_spec,
)

HUB_URL = "https://huggingface.co/datasets/{hub_id}/resolve/{revision}/{path}"
_COMMIT_SHA = re.compile(r"[0-9a-f]{40}")


@dataclass(frozen=True)
class PlannedFile:
    relative: str  # path under the destination, as in spec.files
    url: str
    sha256: str
    hub_path: str | None  # set when the file comes from the Hub (then `revision` is set too)
    revision: str | None


def download_plan(spec: DatasetSpec, revision: str | None = None) -> list[PlannedFile]:
    """Where each pinned file of `spec` will be fetched from; raises DatasetError naming what is missing."""
    if not spec.files:
        raise DatasetError(
            f"dataset {spec.name!r} has no pinned files and checksums yet, so a download could not be "
            "verified; pin them in extrembench.sources.ingest.DATASETS first"
        )
    revision = revision or spec.revision
    if revision is not None and not _COMMIT_SHA.fullmatch(revision):
        raise DatasetError(
            f"revision {revision!r} for {spec.name!r} is not a 40-hex commit sha; branches and tags "
            f"move, so pass the commit (see https://huggingface.co/datasets/{spec.hub_id}/commits/main)"
        )
    plan, unavailable = [], []
    for relative, sha in spec.files.items():
        if relative in spec.derived:
            continue  # rebuilt from the downloaded files, see fetch_dataset
        hub_path = spec.hub_paths.get(relative)
        if hub_path is not None and revision is not None:
            url = HUB_URL.format(hub_id=spec.hub_id, revision=revision, path=hub_path)
            plan.append(PlannedFile(relative, url, sha, hub_path, revision))
        elif relative in spec.mirrors:
            plan.append(PlannedFile(relative, spec.mirrors[relative], sha, None, None))
        elif hub_path is not None:
            unavailable.append(f"{relative} (on the Hub: pass revision=<commit sha of {spec.hub_id}>)")
        else:
            unavailable.append(f"{relative} ({spec.origin.get(relative, 'no download source')})")
    if unavailable:
        raise DatasetError(f"cannot download every file of {spec.name!r}: " + "; ".join(unavailable))
    return plan


def store_verified(chunks: Iterable[bytes], target: Path, expected_sha256: str, *, source: str) -> Path:
    """Write the byte chunks to `target` only if their sha256 is the expected one (atomic rename)."""
    digest = hashlib.sha256()
    with atomic_output(target) as part, open(part, "wb") as handle:
        for chunk in chunks:
            digest.update(chunk)
            handle.write(chunk)
        handle.flush()
        actual = digest.hexdigest()
        if actual != expected_sha256:  # raised inside the block: the temp file goes, target is untouched
            raise ChecksumError(
                f"{source}: sha256 mismatch for {target.name}: expected {expected_sha256}, got {actual}. "
                f"The download is not the pinned file; nothing was written to {target}."
            )
    return target


def _read_chunks(path: Path, size: int = 1 << 20) -> Iterable[bytes]:
    with open(path, "rb") as handle:
        yield from iter(lambda: handle.read(size), b"")


def _hub_chunks(spec: DatasetSpec, planned: PlannedFile) -> Iterable[bytes]:
    try:
        from huggingface_hub import hf_hub_download  # optional: resumable, cached, token-aware
    except ImportError:
        yield from _https_chunks(planned.url)
        return
    try:
        cached = hf_hub_download(
            repo_id=spec.hub_id, filename=planned.hub_path, repo_type="dataset", revision=planned.revision
        )
    except Exception as exc:  # the library's many network and Hub errors: each is "this address failed"
        raise DatasetError(_failed(planned.url, exc)) from None
    yield from _read_chunks(Path(cached))


def _failed(url: str, exc: BaseException) -> str:
    """A failed fetch in one line: the address tried, why, and the ways around it."""
    why = " ".join(str(exc).split())[:300] or type(exc).__name__
    return (
        f"GET {url} failed ({type(exc).__name__}: {why}). Offline, or behind a firewall? Copy the files from a "
        f"machine that has them (--from-local <folder>), or set {SHARED_DATA_ENV} to a folder holding the datasets"
    )


def _https_chunks(url: str) -> Iterable[bytes]:
    import httpx  # deferred: httpx costs start-up time and only this path needs it

    headers = {}
    token = os.environ.get("HF_TOKEN")
    if token and url.startswith("https://huggingface.co/"):
        headers["Authorization"] = f"Bearer {token}"  # gated datasets; never sent to the mirrors
    try:
        with httpx.stream("GET", url, headers=headers, follow_redirects=True, timeout=60.0) as response:
            if response.status_code != 200:
                raise DatasetError(f"GET {url}: HTTP {response.status_code}")
            yield from response.iter_bytes()
    except (httpx.HTTPError, OSError) as exc:  # no route, refused, DNS, timeout, dropped mid-file
        raise DatasetError(_failed(url, exc)) from None


def fetch_dataset(name: str, dest: Path, *, revision: str | None = None) -> Path:
    """Download every pinned file of dataset `name` into `dest` (same layout), verified; returns dest.

    Files already in `dest` with the right sha256 are kept. Needs the network.
    """
    spec = dataset_spec(name)
    dest = Path(dest)
    for planned in download_plan(spec, revision):
        target = dest / planned.relative
        if target.is_file() and sha256_file(target) == planned.sha256:
            continue
        chunks = _hub_chunks(spec, planned) if planned.hub_path else _https_chunks(planned.url)
        store_verified(chunks, target, planned.sha256, source=planned.url)
    store_derived(spec, dest)
    return dest


def store_derived(spec: DatasetSpec, root: Path) -> None:
    """Rebuild the derived files of `spec` under `root` from the others, verified like downloads."""
    for relative, derive in spec.derived.items():
        store_verified(
            [derive(Path(root))],
            Path(root) / relative,
            spec.files[relative],
            source=f"{relative} rebuilt by {derive.__name__}",
        )


def copy_verified(spec: DatasetSpec, source_root: Path, dest: Path) -> Path:
    """Offline mode for a destination: copy a local copy of the files into `dest`, verified the same way."""
    for relative, sha in spec.files.items():
        source = Path(source_root) / relative
        if not source.is_file():
            raise DatasetError(f"{source}: missing file of dataset {spec.name!r}")
        store_verified(_read_chunks(source), Path(dest) / relative, sha, source=str(source))
    return Path(dest)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m extrembench.sources.download", description=__doc__.splitlines()[0])
    parser.add_argument("name", choices=sorted(DATASETS))
    parser.add_argument("dest", type=Path)
    parser.add_argument("--revision", help="Hub commit sha (40 hex) when the registry does not pin one")
    parser.add_argument("--from-local", type=Path, help="copy from this local copy instead of the network")
    args = parser.parse_args(argv)
    try:
        if args.from_local:
            copy_verified(DATASETS[args.name], args.from_local, args.dest)
        else:
            fetch_dataset(args.name, args.dest, revision=args.revision)
    except DatasetError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(args.dest)
    return 0


if __name__ == "__main__":
    sys.exit(main())
