"""Download the lecture's names.txt once, verified by SHA-256, into a cache directory."""

import hashlib
import http.client
import os
import tempfile
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from data.errors import DatasetError

MAKEMORE_URL = "https://raw.githubusercontent.com/karpathy/makemore/master/names.txt"
NAMES_SHA256 = "0a30b5557f192f32ab962680889aac5f6fda0f4cecf40a6d0b5694f58ea8cc4d"
NAMES_FILE = "names.txt"
CHUNK_BYTES = 64 * 1024
MAX_BYTES = 20_000_000
PROJECT_ROOT = Path(__file__).resolve().parents[1]

Progress = Callable[[int, int | None], None]


def default_cache_dir() -> Path:
    """Return the default cache directory, the project's var/cache, which the app uses too."""
    return PROJECT_ROOT / "var" / "cache"


def cached_names(cache_dir: str | Path | None = None) -> Path | None:
    """Return the cached names.txt if it is there and its checksum matches, else None."""
    path = Path(cache_dir or default_cache_dir()) / NAMES_FILE
    if path.is_file() and hashlib.sha256(path.read_bytes()).hexdigest() == NAMES_SHA256:
        return path
    return None


def download_names(
    url: str = MAKEMORE_URL,
    cache_dir: str | Path | None = None,
    progress: Progress | None = None,
    timeout: float = 30.0,
) -> Path:
    """Return the path of the verified names.txt in cache_dir, downloading it if needed.

    A verified cached copy is returned without touching the network. Otherwise url is streamed
    to a temporary file, calling progress(done_bytes, total_bytes or None) per chunk, checked
    against NAMES_SHA256 and moved into place atomically; on any failure nothing is left behind
    and DatasetError explains what went wrong.

        >>> download_names(cache_dir="var/data", progress=lambda done, total: print(done, total))
    """
    cached = cached_names(cache_dir)
    if cached is not None:
        return cached
    directory = Path(cache_dir or default_cache_dir())
    directory.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".names-", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as out:
            digest = _fetch(url, out, progress, timeout)
            out.flush()
            os.fsync(out.fileno())
        _verify(digest)
        target = directory / NAMES_FILE
        os.replace(tmp, target)
    finally:
        Path(tmp).unlink(missing_ok=True)
    return target


def _fetch(url: str, out: BinaryIO, progress: Progress | None, timeout: float) -> str:
    """Stream url into out and return the SHA-256 hex digest of what was written."""
    fail = f"Could not download `{NAMES_FILE}` from {url}"
    hint = "Hint: check the network connection and try again."
    try:
        with urllib.request.build_opener().open(url, timeout=timeout) as response:
            return _copy(response, out, progress)
    except urllib.error.HTTPError as err:
        status = f"HTTP {err.code} {err.reason}"
        raise DatasetError(f"{fail}: {status}. Hint: check the address.") from None
    except urllib.error.URLError as err:
        raise DatasetError(f"{fail}: {err.reason}. {hint}") from None
    except ValueError as err:
        raise DatasetError(f"{fail}: {err}. Hint: check the address.") from None
    except (OSError, http.client.HTTPException) as err:
        raise DatasetError(f"{fail}: {str(err) or type(err).__name__}. {hint}") from None


def _copy(response: http.client.HTTPResponse, out: BinaryIO, progress: Progress | None) -> str:
    """Copy the response body to out in chunks, reporting progress; return its digest."""
    length = response.headers.get("Content-Length")
    total = int(length) if length and length.isdigit() else None
    sha, done = hashlib.sha256(), 0
    if progress is not None:
        progress(done, total)
    while chunk := response.read(CHUNK_BYTES):
        done += len(chunk)
        if done > MAX_BYTES:
            raise OSError(f"the file is larger than {MAX_BYTES / 1e6:g} MB")
        sha.update(chunk)
        out.write(chunk)
        if progress is not None:
            progress(done, total)
    if total is not None and done != total:
        raise OSError(f"the connection closed after {done:,} of {total:,} bytes")
    return sha.hexdigest()


def _verify(digest: str) -> None:
    """Raise DatasetError if digest is not the checksum of the lecture's names.txt."""
    if digest != NAMES_SHA256:
        raise DatasetError(
            f"The downloaded `{NAMES_FILE}` does not match its checksum: "
            f"got sha256 {digest[:12]}…, expected {NAMES_SHA256[:12]}…; nothing was saved."
        )
