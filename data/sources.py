"""Pick a dataset by name or path: the embedded default, the lecture's names, or a file."""

import hashlib
from pathlib import Path

from data.dataset import Dataset, build_dataset, default_dataset
from data.download import NAMES_FILE, NAMES_SHA256, cached_names, default_cache_dir
from data.errors import DatasetError
from data.words import load_words


def load_dataset(
    source: str | Path | None = None,
    block_size: int = 3,
    *,
    cache_dir: str | Path | None = None,
    column: str | None = None,
) -> Dataset:
    """Return the dataset for source: None or "default", "names", or a word-list file.

    "names" is the lecture's names.txt, read verbatim (duplicates kept, so the splits match the
    lecture) from cache_dir once download_names has fetched it. Any other value is a path to a
    text or CSV file, cleaned by load_words and named after the file.

        >>> load_dataset("names", cache_dir="var/data").summary()["train"]
        182625
    """
    if source is None or source == "default":
        return default_dataset(block_size)
    if source == "names":
        words = _names_path(cache_dir).read_text(encoding="utf-8").splitlines()
        return build_dataset(words, block_size, name="names")
    path = Path(source)
    if _is_lecture_names(path):
        words = path.read_text(encoding="utf-8").splitlines()
        return build_dataset(words, block_size, name="names")
    return build_dataset(load_words(path, column=column).words, block_size, name=path.stem)


def _is_lecture_names(path: Path) -> bool:
    """Return whether path holds the lecture's names.txt byte for byte (read it verbatim)."""
    if not path.is_file() or path.stat().st_size > 1_000_000:
        return False
    return hashlib.sha256(path.read_bytes()).hexdigest() == NAMES_SHA256


def _names_path(cache_dir: str | Path | None) -> Path:
    """Return the cached lecture names.txt, or raise DatasetError saying how to get it."""
    path = cached_names(cache_dir)
    if path is not None:
        return path
    where = Path(cache_dir or default_cache_dir()) / NAMES_FILE
    state = "is damaged (its checksum does not match)" if where.exists() else "is not downloaded"
    raise DatasetError(
        f"The lecture's `{NAMES_FILE}` {state}: looked in {where}. "
        "Hint: download it on the app's Home page, or run `python -m grader download-names`."
    )
