"""The app's configuration: a frozen dataclass read once from `NINJA_*` environment variables.

Only app/ reads the environment; everything below it receives plain values.

    >>> from_env({"NINJA_DATA_DIR": "/tmp/ninja"}).database_url
    'sqlite:////tmp/ninja/progress.sqlite3'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path

PREFIX = "NINJA_"
PROJECT_ROOT = Path(__file__).resolve().parents[1]
EDITORS = ("ace", "plain")
MAX_TIME_LIMIT = 300.0  # seconds: a grading that holds a slot longer starves the class


class ConfigError(ValueError):
    """A `NINJA_*` variable names no field or holds an unusable value."""


@dataclass(frozen=True)
class AppConfig:
    """Where the app keeps its files, which editor it shows, and where exercises live."""

    data_dir: Path = PROJECT_ROOT / "var"  # the same folder whichever directory starts the app
    database_url: str = ""
    editor: str = "ace"
    exercises_dir: Path | None = None
    require_all_layers: bool = False  # refuse to grade unless every sandbox layer is on
    reveal_after: int = 1  # real attempts before the solution may be revealed; 0: never
    grade_delay: float = 0.0  # tests only: seconds between recording a submission and grading it
    time_limit: float = 5.0  # CPU seconds one grading may use; its wall-clock limit is twice that
    # Whether whoever opens the app is the course's instructor: the Problems page and the file
    # problems on Home (server paths, answers' paths, mistake hints). Locally the person running
    # the app is; a server for learners sets NINJA_INSTRUCTOR=0 (they see only that some
    # exercises are withdrawn).
    instructor: bool = True

    @property
    def cache_dir(self) -> Path:
        """Return where downloaded word lists are kept."""
        return self.data_dir / "cache"

    @property
    def uploads_dir(self) -> Path:
        """Return where cleaned uploaded word lists are kept."""
        return self.data_dir / "uploads"


def from_env(environ: Mapping[str, str]) -> AppConfig:
    """Return the configuration, overriding defaults with `NINJA_<FIELD>` variables."""
    known = {f.name: f for f in fields(AppConfig)}
    values: dict = {}
    for key, raw in environ.items():
        if not key.startswith(PREFIX):
            continue
        name = key[len(PREFIX) :].lower()
        if name not in known:
            names = ", ".join(PREFIX + n.upper() for n in known)
            raise ConfigError(f"`{key}` is not a setting; known settings: {names}.")
        values[name] = _convert(name, raw)
    config = AppConfig(**values)
    if config.editor not in EDITORS:
        choices = ", ".join(EDITORS)
        raise ConfigError(f"`NINJA_EDITOR` must be one of {choices}: got {config.editor!r}.")
    if config.exercises_dir is not None and not config.exercises_dir.is_dir():
        found = config.exercises_dir
        raise ConfigError(f"`NINJA_EXERCISES_DIR` must be an exercises folder: {found} is not one.")
    if not config.database_url:
        path = (config.data_dir / "progress.sqlite3").resolve()
        config = AppConfig(**{**values, "database_url": f"sqlite:///{path}"})
    return config


def _convert(name: str, raw: str):
    """Return raw converted to the type of field `name`."""
    if name in ("data_dir", "exercises_dir"):
        return Path(raw).expanduser()
    if name in ("require_all_layers", "instructor"):
        return _flag(name, raw)
    if name == "reveal_after":
        return _count(name, raw)
    if name == "grade_delay":
        return _seconds(name, raw)
    if name == "time_limit":
        return _limit(name, raw)
    return raw


def _count(name: str, raw: str) -> int:
    """Return a whole number of at least 0; anything else is an error that names the setting."""
    value = raw.strip()
    if not value.isdigit():
        raise ConfigError(
            f"`{PREFIX}{name.upper()}` must be a whole number, 0 or more: got {raw!r}."
        )
    return int(value)


def _seconds(name: str, raw: str) -> float:
    """Return a duration in seconds, 0 or more; anything else is an error that names the setting."""
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not value >= 0:
        raise ConfigError(f"`{PREFIX}{name.upper()}` must be a number of seconds: got {raw!r}.")
    return value


def _limit(name: str, raw: str) -> float:
    """Return a time limit in seconds, above 0 and at most MAX_TIME_LIMIT."""
    value = _seconds(name, raw)
    if not 0 < value <= MAX_TIME_LIMIT:
        raise ConfigError(
            f"`{PREFIX}{name.upper()}` must be more than 0 and at most {MAX_TIME_LIMIT:g} "
            f"seconds: got {raw!r}."
        )
    return value


def _flag(name: str, raw: str) -> bool:
    """Return a yes/no setting; anything else is an error that names the setting."""
    value = raw.strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("", "0", "false", "no", "off"):
        return False
    raise ConfigError(f"`{PREFIX}{name.upper()}` must be 1 or 0 (true or false): got {raw!r}.")
