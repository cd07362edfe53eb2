"""Datasets for Backprop Ninja: word lists, the lecture's tensors, and the names download."""

from data.clean import CleanReport
from data.dataset import Dataset, build_dataset, default_dataset
from data.download import (
    MAKEMORE_URL,
    NAMES_SHA256,
    cached_names,
    default_cache_dir,
    download_names,
)
from data.errors import DatasetError
from data.sources import load_dataset
from data.words import WordList, load_words

__all__ = [
    "MAKEMORE_URL",
    "NAMES_SHA256",
    "CleanReport",
    "Dataset",
    "DatasetError",
    "WordList",
    "build_dataset",
    "cached_names",
    "default_cache_dir",
    "default_dataset",
    "download_names",
    "load_dataset",
    "load_words",
]
