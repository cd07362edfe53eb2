import subprocess
import sys
from pathlib import Path

import data

PUBLIC = {
    "WordList",
    "CleanReport",
    "DatasetError",
    "Dataset",
    "load_words",
    "build_dataset",
    "default_dataset",
    "load_dataset",
    "download_names",
    "MAKEMORE_URL",
    "NAMES_SHA256",
}


def test_package_exports_the_public_api():
    assert set(data.__all__) >= PUBLIC
    assert all(hasattr(data, name) for name in data.__all__)


def test_importing_data_loads_neither_streamlit_nor_torch_nor_the_dataset():
    # The dataset lives in data.dataset (its lru_cache): while that module is not imported,
    # nothing is loaded; checking so imports no torch (a 4 s start of its own).
    code = (
        "import sys, data; "
        "print(*(m in sys.modules for m in ('streamlit', 'torch', 'data.dataset')))"
    )
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True)
    assert out.stdout.split() == ["False", "False", "False"], out.stderr
