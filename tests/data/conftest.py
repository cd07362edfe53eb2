from pathlib import Path

import pytest

LECTURE_NAMES = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "names.txt"


@pytest.fixture
def lecture_names() -> Path:
    """Return the lecture's names.txt from the sibling shared/ folder, or skip."""
    if not LECTURE_NAMES.is_file():
        pytest.skip(f"the lecture's names.txt is not at {LECTURE_NAMES} (shared/ is absent)")
    return LECTURE_NAMES
