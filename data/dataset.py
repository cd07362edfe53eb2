"""Turn words into the lecture's tensors: vocabulary, contexts, shuffled 80/10/10 splits."""

import functools
import hashlib
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import torch

from data.errors import DatasetError

BOUNDARY = "."
SPLITS = ("Xtr", "Ytr", "Xdev", "Ydev", "Xte", "Yte")
DEFAULT_NAMES = Path(__file__).parent / "names" / "default.txt"


@dataclass(frozen=True, eq=False)
class Dataset:
    """The lecture's data: words, vocabulary and int64 (X, Y) splits; do not edit in place."""

    name: str
    words: tuple[str, ...]
    stoi: dict[str, int]
    itos: dict[int, str]
    vocab_size: int
    block_size: int
    Xtr: torch.Tensor
    Ytr: torch.Tensor
    Xdev: torch.Tensor
    Ydev: torch.Tensor
    Xte: torch.Tensor
    Yte: torch.Tensor
    fingerprint: str

    def summary(self) -> dict[str, str | int]:
        """Return the name, sizes and split example counts as a plain dict."""
        return {
            "name": self.name,
            "words": len(self.words),
            "vocab_size": self.vocab_size,
            "block_size": self.block_size,
            "train": len(self.Ytr),
            "dev": len(self.Ydev),
            "test": len(self.Yte),
        }


def build_dataset(
    words: Sequence[str], block_size: int = 3, *, name: str = "words", seed: int = 42
) -> Dataset:
    """Build the lecture's dataset from words, exactly as its notebook does.

    `'.'` is 0 and the sorted characters follow from 1; each character of `w + '.'` is a target
    whose context is the previous block_size ids; words are shuffled with `random.seed(seed)`
    (on a copy, without touching the global RNG) and split at 80% and 90% of the words.

        >>> build_dataset(["emma", "olivia", "ava"] * 4).summary()["train"]
        45
    """
    words = tuple(words)
    _check(words, block_size)
    chars = sorted(set("".join(words)))
    stoi = {BOUNDARY: 0} | {s: i + 1 for i, s in enumerate(chars)}
    shuffled = list(words)
    random.Random(seed).shuffle(shuffled)
    X, Y = contexts(shuffled, stoi, block_size)
    splits = dict(zip(SPLITS, _split(X, Y, shuffled), strict=True))
    return Dataset(
        name=name,
        words=words,
        stoi=stoi,
        itos={i: s for s, i in stoi.items()},
        vocab_size=len(stoi),
        block_size=block_size,
        fingerprint=fingerprint(words, block_size, seed),
        **splits,
    )


def contexts(
    words: Sequence[str], stoi: dict[str, int], block_size: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """Return the lecture's (X, Y) for words in order, vectorised instead of its Python loop."""
    # Lay each word out as block_size dots, its characters, one dot: every position after the
    # leading dots is a target, and its context is the block_size ids just before it.
    pad = BOUNDARY * block_size
    text = "".join(pad + w + BOUNDARY for w in words)
    codes = torch.frombuffer(bytearray(text.encode("utf-32-le")), dtype=torch.int32)
    uniq, inverse = torch.unique(codes, return_inverse=True)
    ids = torch.tensor([stoi[chr(c)] for c in uniq.tolist()], dtype=torch.int64)[inverse]
    segment = torch.tensor([block_size + len(w) + 1 for w in words], dtype=torch.int64)
    starts = torch.cumsum(segment, 0) - segment
    is_target = torch.ones(len(ids), dtype=torch.bool)
    is_target[(starts[:, None] + torch.arange(block_size)).flatten()] = False
    targets = torch.nonzero(is_target).flatten()
    X = ids[targets[:, None] - block_size + torch.arange(block_size)]
    return X, ids[targets]


def fingerprint(words: Sequence[str], block_size: int, seed: int = 42) -> str:
    """Return a short sha256 hex of the words, block_size and seed, for use as a cache key."""
    text = f"{block_size}\n{seed}\n" + "\n".join(words)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def default_dataset(block_size: int = 3) -> Dataset:
    """Return the embedded US baby-names dataset (built once per block_size)."""
    return _default_dataset(block_size)


@functools.lru_cache(maxsize=8)
def _default_dataset(block_size: int) -> Dataset:
    """Build the embedded dataset; cached under one key per block_size."""
    words = DEFAULT_NAMES.read_text(encoding="ascii").splitlines()
    return build_dataset(words, block_size, name="default")


def _split(X: torch.Tensor, Y: torch.Tensor, words: list[str]) -> list[torch.Tensor]:
    """Return Xtr, Ytr, Xdev, Ydev, Xte, Yte, cut where word 80% and word 90% begin."""
    n1, n2 = int(0.8 * len(words)), int(0.9 * len(words))
    e1 = sum(len(w) + 1 for w in words[:n1])
    e2 = e1 + sum(len(w) + 1 for w in words[n1:n2])
    parts = [(0, e1), (e1, e2), (e2, len(Y))]
    return [t[a:b].clone() for a, b in parts for t in (X, Y)]


def _check(words: tuple[str, ...], block_size: int) -> None:
    """Raise DatasetError if words or block_size cannot make the lecture's dataset."""
    if block_size < 1:
        raise DatasetError(f"`block_size` must be positive: got {block_size}.")
    if not words:
        raise DatasetError("The word list is empty: got 0 words, expected at least 1.")
    bad = next((w for w in words if not isinstance(w, str) or not w or BOUNDARY in w), None)
    if bad is not None:
        raise DatasetError(
            f"The word list has an unusable word: got {bad!r}; "
            f"words must be non-empty and must not contain '{BOUNDARY}'."
        )
