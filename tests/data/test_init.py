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
    code = (
        "import sys, data; torch = 'torch' in sys.modules; import data.dataset; "
        "print('streamlit' in sys.modules, torch, "
        "data.dataset._default_dataset.cache_info().currsize)"
    )
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True)
    assert out.stdout.split() == ["False", "False", "0"], out.stderr
