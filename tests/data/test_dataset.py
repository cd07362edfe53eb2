import random

import pytest
import torch

from data.dataset import SPLITS, build_dataset, default_dataset, fingerprint
from data.errors import DatasetError

SMALL = ["emma", "olivia", "ava", "isabella", "mary_ann", "x", "zoe", "bo", "st_john", "liam"] * 7


def lecture(words, block_size):
    """Return stoi and the six split tensors exactly as the lecture's notebook makes them."""
    words = list(words)
    chars = sorted(list(set("".join(words))))
    stoi = {s: i + 1 for i, s in enumerate(chars)}
    stoi["."] = 0

    def build(words):
        X, Y = [], []
        for w in words:
            context = [0] * block_size
            for ch in w + ".":
                ix = stoi[ch]
                X.append(context)
                Y.append(ix)
                context = context[1:] + [ix]
        return torch.tensor(X).view(-1, block_size), torch.tensor(Y)

    random.seed(42)
    random.shuffle(words)
    n1 = int(0.8 * len(words))
    n2 = int(0.9 * len(words))
    return stoi, (*build(words[:n1]), *build(words[n1:n2]), *build(words[n2:]))


@pytest.mark.parametrize("block_size", [1, 3, 5, 8])
def test_build_dataset_matches_the_lecture_loop(block_size):
    stoi, tensors = lecture(SMALL, block_size)
    ds = build_dataset(SMALL, block_size)
    assert ds.stoi == stoi
    assert ds.itos == {i: s for s, i in stoi.items()}
    for split, expected in zip(SPLITS, tensors, strict=True):
        assert getattr(ds, split).dtype == torch.int64
        assert torch.equal(getattr(ds, split), expected), split


def test_build_dataset_reproduces_the_lecture_splits(lecture_names):
    words = lecture_names.read_text().splitlines()
    ds = build_dataset(words)
    assert ds.vocab_size == 27
    assert (len(ds.Ytr), len(ds.Ydev), len(ds.Yte)) == (182_625, 22_655, 22_866)
    assert ds.Xtr.shape == (182_625, 3)
    _, tensors = lecture(words, 3)
    for split, expected in zip(SPLITS, tensors, strict=True):
        assert torch.equal(getattr(ds, split), expected), split


def test_build_dataset_keeps_words_and_leaves_the_global_rng_alone():
    state = random.getstate()
    ds = build_dataset(SMALL, name="small")
    assert random.getstate() == state
    assert ds.words == tuple(SMALL)
    assert ds.name == "small"


def test_build_dataset_handles_any_characters():
    words = ["Zoë", "a b", "日本", "x-y"] * 5
    stoi, tensors = lecture(words, 3)
    ds = build_dataset(words)
    assert ds.stoi == stoi
    assert all(torch.equal(getattr(ds, s), t) for s, t in zip(SPLITS, tensors, strict=True))


def test_summary_is_a_plain_dict():
    assert build_dataset(SMALL, 2, name="small").summary() == {
        "name": "small",
        "words": 70,
        "vocab_size": 19,
        "block_size": 2,
        "train": 313,
        "dev": 32,
        "test": 47,
    }


def test_fingerprint_changes_with_words_block_size_and_seed():
    base = build_dataset(SMALL).fingerprint
    assert len(base) == 16 and int(base, 16) >= 0
    assert build_dataset(list(SMALL)).fingerprint == base
    assert build_dataset(SMALL, 4).fingerprint != base
    assert build_dataset(SMALL, seed=1).fingerprint != base
    assert build_dataset(SMALL[1:]).fingerprint != base
    assert fingerprint(SMALL, 3) == base


def test_seed_changes_the_split():
    a, b = build_dataset(SMALL), build_dataset(SMALL, seed=7)
    assert not torch.equal(a.Yte, b.Yte) or not torch.equal(a.Xte, b.Xte)


ERROR_CASES = [
    ("no words", [], 3, "The word list is empty"),
    ("empty word", ["ab", ""], 3, "got ''"),
    ("boundary in word", ["ab", "a.b"], 3, "got 'a.b'; words must be non-empty and must not"),
    ("not a string", ["ab", 3], 3, "got 3"),
    ("block size zero", ["ab"], 0, "`block_size` must be positive: got 0."),
]


@pytest.mark.parametrize(
    ("words", "block_size", "message"),
    [c[1:] for c in ERROR_CASES],
    ids=[c[0] for c in ERROR_CASES],
)
def test_build_dataset_explains_bad_input(words, block_size, message):
    with pytest.raises(DatasetError) as info:
        build_dataset(words, block_size)
    assert message in str(info.value)


def test_default_dataset_is_cached_per_block_size():
    ds = default_dataset()
    assert default_dataset() is ds
    assert default_dataset(3) is ds
    assert default_dataset(block_size=3) is ds
    assert default_dataset(4).block_size == 4
    assert default_dataset(4).Xtr.shape[1] == 4


def test_default_dataset_has_the_documented_shape():
    ds = default_dataset()
    assert ds.name == "default"
    assert ds.vocab_size == 27
    assert ds.itos[0] == "." and ds.itos[1] == "a" and ds.itos[26] == "z"
    assert len(ds.words) >= 25_000
    assert (len(ds.Ytr), len(ds.Ydev), len(ds.Yte)) == (175_591, 22_023, 22_002)
    assert len(ds.Ytr) + len(ds.Ydev) + len(ds.Yte) == sum(len(w) + 1 for w in ds.words)
