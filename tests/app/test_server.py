"""The server (app/server.py) refuses a bad configuration before it serves anything: its
lifespan runs `python -m app.config`'s checks (for a start that skips scripts/serve's, such as
`uvicorn`). Its routes are served by a real server in tests/e2e/test_operations.py."""

from __future__ import annotations

import os
import subprocess
import sys

from .app_helpers import ROOT


def test_a_bad_configuration_stops_the_server_before_it_serves(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NINJA_", "STREAMLIT_"))}
    env |= {"NINJA_MODE": "school", "NINJA_DATA_DIR": str(tmp_path)}
    command = [sys.executable, "-m", "streamlit", "run", "app/server.py", "--server.port", "0"]
    done = subprocess.run(
        [*command, "--server.headless", "true"], cwd=ROOT, env=env, capture_output=True,
        text=True, timeout=120,
    )  # fmt: skip
    said = done.stdout + done.stderr
    assert done.returncode == 3, said  # uvicorn's "Application startup failed"
    assert "Not starting: `NINJA_MODE` must be one of local, classroom: got 'school'." in said
    assert not (tmp_path / "progress.sqlite3").exists(), "nothing was served or opened"
