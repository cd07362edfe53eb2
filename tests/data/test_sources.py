import pytest

from data.dataset import default_dataset
from data.download import NAMES_FILE
from data.errors import DatasetError
from data.sources import load_dataset


@pytest.mark.parametrize("source", [None, "default"])
def test_load_dataset_returns_the_embedded_default(source):
    assert load_dataset(source) is default_dataset()
    assert load_dataset(source, block_size=4) is default_dataset(4)


def test_load_dataset_reads_the_cached_lecture_names_verbatim(lecture_names, tmp_path):
    (tmp_path / NAMES_FILE).write_bytes(lecture_names.read_bytes())
    ds = load_dataset("names", cache_dir=tmp_path)
    assert ds.name == "names"
    assert len(ds.words) == 32_033
    assert (len(ds.Ytr), len(ds.Ydev), len(ds.Yte)) == (182_625, 22_655, 22_866)


def test_load_dataset_reads_a_local_copy_of_the_lecture_names_verbatim(lecture_names, tmp_path):
    copy = tmp_path / "my_names.txt"
    copy.write_bytes(lecture_names.read_bytes())
    ds = load_dataset(copy)
    assert ds.name == "names" and len(ds.words) == 32_033
    assert (len(ds.Ytr), len(ds.Ydev), len(ds.Yte)) == (182_625, 22_655, 22_866)
    copy.write_bytes(lecture_names.read_bytes() + b"zed\n")
    assert load_dataset(copy).name == "my_names"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "The lecture's `names.txt` is not downloaded: looked in "),
        (b"emma\n", "The lecture's `names.txt` is damaged (its checksum does not match)"),
    ],
    ids=["missing", "damaged"],
)
def test_load_dataset_explains_a_missing_names_file(tmp_path, content, message):
    if content is not None:
        (tmp_path / NAMES_FILE).write_bytes(content)
    with pytest.raises(DatasetError) as info:
        load_dataset("names", cache_dir=tmp_path)
    assert message in str(info.value)
    assert (
        "Hint: download it on the app's Home page, or run `python -m grader download-names`."
        in str(info.value)
    )


def test_load_dataset_cleans_a_text_file(tmp_path):
    path = tmp_path / "birds.txt"
    path.write_text("\n".join(f"Bird {chr(97 + i)}ë" for i in range(12)), encoding="utf-8")
    ds = load_dataset(path, block_size=2)
    assert ds.name == "birds"
    assert ds.words[:2] == ("bird_ae", "bird_be")
    assert ds.block_size == 2
    assert ds.stoi["_"] == 1


def test_load_dataset_reads_a_csv_column(tmp_path):
    path = tmp_path / "pets.csv"
    path.write_text("id,pet\n" + "".join(f"{i},pet{chr(97 + i)}\n" for i in range(10)))
    assert load_dataset(str(path), column="pet").words[0] == "peta"


def test_load_dataset_explains_a_bad_file(tmp_path):
    with pytest.raises(DatasetError, match="`none.txt` does not exist"):
        load_dataset(tmp_path / "none.txt")
