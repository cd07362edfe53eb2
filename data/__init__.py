"""Datasets for Backprop Ninja: word lists, the lecture's tensors, and the names download.

The tensor names (Dataset, build_dataset, default_dataset, load_dataset) load torch on first use,
so that reading an upload in a child process (`python -m data`) imports no torch.
"""

import importlib

from data.clean import CleanReport
from data.download import (
    MAKEMORE_URL,
    NAMES_SHA256,
    cached_names,
    default_cache_dir,
    download_names,
)
from data.errors import DatasetError
from data.upload import Preview, Upload, preview, read_upload
from data.words import WordList, load_words

_TENSORS = {
    "Dataset": "data.dataset",
    "build_dataset": "data.dataset",
    "default_dataset": "data.dataset",
    "load_dataset": "data.sources",
}

__all__ = [
    "MAKEMORE_URL",
    "NAMES_SHA256",
    "CleanReport",
    "Dataset",
    "DatasetError",
    "Preview",
    "Upload",
    "WordList",
    "build_dataset",
    "cached_names",
    "default_cache_dir",
    "default_dataset",
    "download_names",
    "load_dataset",
    "load_words",
    "preview",
    "read_upload",
]


def __getattr__(name: str):
    """Import a tensor name from its home module on first use."""
    if name not in _TENSORS:
        raise AttributeError(f"module 'data' has no attribute {name!r}")
    value = getattr(importlib.import_module(_TENSORS[name]), name)
    globals()[name] = value
    return value
