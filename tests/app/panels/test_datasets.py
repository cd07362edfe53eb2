"""Choosing the dataset on Home: the default, the lecture's names.txt, an uploaded word list."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import data
from app import services, session

from ..app_helpers import ROOT, page_test, texts

NAMES = ROOT.parent / "shared" / "data" / "names.txt"
BIRDS = b"Name,Family\nBlack-capped Chickadee,Paridae\nBlue Jay,Corvidae\n" + b"".join(
    f"Bird {chr(97 + i)}{chr(98 + i)},X\n".encode() for i in range(12)
)

# Ten names and one enormous word: before the word cap, a preview with 500,000 bars.
NAMES_AND_A_WORD = b"anna\nbob\ncarl\ndora\nemil\nfay\ngus\nhal\nivy\njo\n" + b"x" * 500_000


def _home():
    return page_test(page="home").run()


def _source() -> str:
    store = services.store()
    return store.learners.setting(store.learners.profiles()[0], session.DATASET_SETTING, "default")


def _choose(at, kind: str):
    at.radio(key="dataset:kind").set_value(kind)
    return at.run()


def test_an_upload_is_shown_cleaned_before_it_is_used(fake, app_env):
    at = _choose(_home(), "upload")
    at.text_input(key="dataset:column").input("Name")
    at.file_uploader(key="dataset:upload").set_value(("birds.csv", BIRDS, "text/csv"))
    at.run()
    assert not at.exception and not at.error
    text = texts(at)
    assert "**14 words**" in text and "black_capped_chickadee" in text
    assert "lines were lowercased" in text
    assert at.get("vega_lite_chart"), "a histogram of word lengths"
    assert _source() == "default", "nothing changes before the learner says so"
    at.button(key="dataset:use:upload").click().run()
    path = Path(_source().removeprefix(services.UPLOAD_PREFIX))
    assert path.parent.parent == app_env / "uploads" and path.name == "birds.txt"
    assert path.read_text().splitlines()[0] == "black_capped_chickadee"


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("empty.txt", b"", "is empty"),
        ("photo.txt", b"\x89PNG\x00\x00\x1a" * 50, "looks binary"),
        ("same.txt", b"a\n" * 10 + b"aa\n" * 10, "too few"),
        ("huge.txt", b"x" * 20_000_001, "is too large"),
        ("word.txt", NAMES_AND_A_WORD, "a word of 500,000 characters on line 11; the limit is 100"),
        ("latin1.txt", "zoë\n".encode("latin-1") * 20, "`latin1.txt` is not UTF-8: byte 0xEB"),
        ("utf16.txt", "anna\nbob\n".encode("utf-16"), "is UTF-16, not UTF-8"),
        (
            "one-letter.txt",
            b"\n".join(b"a" * i for i in range(1, 30)),
            "too few distinct characters: got 1 ('a')",
        ),
    ],
)
def test_a_bad_upload_gets_a_clear_message_and_changes_nothing(fake, name, content, message):
    at = _choose(_home(), "upload")
    at.file_uploader(key="dataset:upload").set_value((name, content, "text/plain"))
    at.run()
    assert message in at.error[0].value
    assert not any(b.key == "dataset:use:upload" for b in at.button)
    assert _source() == "default"


def test_names_download_failure_is_explained(fake, monkeypatch):
    def offline(cache_dir, progress):
        progress(0, 228_145)
        raise data.DatasetError("Could not download `names.txt`: no network.")

    monkeypatch.setattr(data, "download_names", offline)
    at = _choose(_home(), "names")
    at.button(key="dataset:download").click().run()
    assert at.error[0].value == "Could not download `names.txt`: no network."
    assert _source() == "default"


def test_names_download_shows_progress_then_the_verified_preview(
    fake, app_env, monkeypatch, shared_data_url
):
    real, seen = data.download_names, []

    def local(cache_dir, progress):
        def spy(done, total):
            seen.append((done, total))
            progress(done, total)

        return real(f"{shared_data_url}/names.txt", cache_dir=cache_dir, progress=spy)

    monkeypatch.setattr(data, "download_names", local)
    at = _choose(_home(), "names")
    at.button(key="dataset:download").click().run()
    assert not at.exception and not at.error
    size = NAMES.stat().st_size
    assert len(seen) >= 2 and seen[-1] == (size, size), seen
    assert at.get("progress")[0].proto.text == "Downloaded and verified."
    assert (app_env / "cache" / "names.txt").read_bytes() == NAMES.read_bytes()
    assert "**32,033 words**" in texts(at)
    at.button(key="dataset:use:names").click().run()
    assert _source() == "names"


@pytest.mark.skipif(not NAMES.exists(), reason=f"the lecture's names.txt is not at {NAMES}")
def test_the_cached_names_are_previewed_then_used(fake, app_env):
    (app_env / "cache").mkdir(parents=True)
    shutil.copy(NAMES, app_env / "cache" / "names.txt")
    at = _choose(_home(), "names")
    assert "**32,033 words**" in texts(at)
    at.button(key="dataset:use:names").click().run()
    assert _source() == "names"


def test_a_dataset_that_no_longer_loads_falls_back_to_the_default(app_env, monkeypatch):
    page = page_test("01_mlp", page="whole_pass")
    store = services.store()
    store.learners.set_setting(
        store.learners.add_profile("learner"), session.DATASET_SETTING, "upload:/gone.txt"
    )
    calls = []

    def grader(source):
        calls.append(source)
        if source != "default":
            raise data.DatasetError("`gone.txt` does not exist or is not a file: /gone.txt.")
        return object()

    monkeypatch.setattr(services, "grader", grader)
    at = page.run()
    assert "Using the embedded default dataset instead." in at.warning[0].value
    assert calls == ["upload:/gone.txt", "default"] and _source() == "default"
