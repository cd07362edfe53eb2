"""An uploaded word list reaches every process of a class (app/storage/wordlists.py): a replica or a
training worker whose own disk lacks the file reads the words from the database, on SQLite and
on a real PostgreSQL server."""

from __future__ import annotations

import pytest

import data
from app.storage import open_store, wordlists

WORDS = "".join(f"{a}{b}{c}\n" for a in "abcdefgh" for b in "aeiou" for c in "lmnrst")


@pytest.fixture
def store(store_url):
    return open_store(store_url)


def test_another_machine_reads_an_upload_from_the_database(store, tmp_path):
    here, there = tmp_path / "replica1" / "uploads", tmp_path / "worker" / "uploads"
    path = wordlists.save(store.word_lists, here, WORDS, "my pets.csv")
    assert path == here / wordlists.digest_of(WORDS) / "my pets.txt"
    path.unlink()  # as on another machine: the named file is not there
    found = wordlists.readable(store.word_lists, there, str(path))
    assert found == there / path.parent.name / "my pets.txt"
    assert found.read_text(encoding="utf-8") == WORDS
    assert sorted(data.load_dataset(str(found)).words) == sorted(WORDS.split())
    assert (
        wordlists.readable(store.word_lists, there, str(path)) == found
    )  # its own copy, next time


def test_a_file_that_is_here_is_read_as_it_is(store, tmp_path):
    path = wordlists.save(store.word_lists, tmp_path / "uploads", WORDS, "pets.txt")
    assert wordlists.readable(store.word_lists, tmp_path / "elsewhere", str(path)) == path
    assert not (tmp_path / "elsewhere").exists()


def test_saving_the_same_words_twice_keeps_one_row(store, tmp_path):
    wordlists.save(store.word_lists, tmp_path / "a", WORDS, "pets.txt")
    wordlists.save(store.word_lists, tmp_path / "b", WORDS, "pets.txt")
    assert store.word_lists.words(wordlists.digest_of(WORDS)) == ("pets.txt", WORDS)


def test_words_that_do_not_match_their_digest_are_not_written(store, tmp_path):
    digest = wordlists.digest_of(WORDS)
    store.word_lists.keep_words(
        digest, "pets.txt", WORDS + "intruder\n"
    )  # a row its digest does not name
    named = str(tmp_path / "gone" / digest / "pets.txt")
    assert str(wordlists.readable(store.word_lists, tmp_path / "mine", named)) == named
    assert not (tmp_path / "mine").exists()


def test_an_upload_the_database_lacks_is_reported_missing(store, tmp_path):
    named = str(tmp_path / "gone" / "0123456789ab" / "pets.txt")
    with pytest.raises(data.DatasetError):
        wordlists.load_dataset(
            wordlists.PREFIX + named, tmp_path / "cache", tmp_path / "uploads", store.word_lists
        )


def test_an_upload_made_elsewhere_loads_as_every_process_loads_it(store, tmp_path):
    path = wordlists.save(store.word_lists, tmp_path / "replica1", WORDS, "pets.txt")
    path.unlink()  # a replica, the worker and the regrade command load a source through here
    source = wordlists.PREFIX + str(path)
    dataset = wordlists.load_dataset(source, tmp_path / "cache", tmp_path / "u", store.word_lists)
    assert sorted(dataset.words) == sorted(WORDS.split())


def test_a_worker_trains_on_an_upload_made_on_another_machine(store, tmp_path):
    from app.config import AppConfig
    from app.training.runner import Trainers

    path = wordlists.save(store.word_lists, tmp_path / "replica1" / "uploads", WORDS, "pets.txt")
    path.unlink()  # the worker's machine never had the file
    trainers = Trainers(AppConfig(data_dir=tmp_path / "worker"), store)
    trainer = trainers.get(wordlists.PREFIX + str(path))
    assert sorted(trainer.dataset.words) == sorted(WORDS.split())
    assert (tmp_path / "worker" / "uploads" / path.parent.name / "pets.txt").is_file()
