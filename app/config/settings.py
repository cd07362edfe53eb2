"""The app's configuration: a frozen dataclass read once from `NINJA_*` environment variables.

Only app/ reads the environment; everything below it receives plain values. `python -m
app.config` (__main__.py) checks the environment, Streamlit's secrets and the database URL
before the server starts (scripts/run runs it first): one line and exit status 2 for a
configuration the app would refuse (an unknown or malformed `NINJA_DATABASE_URL`, the
classroom mode on SQLite).

    >>> from_env({"NINJA_DATA_DIR": "/tmp/ninja"}).database_url
    'sqlite:////tmp/ninja/progress.sqlite3'
"""

from __future__ import annotations

import os
import sys
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path

from app.config import trust
from app.config.dburl import POSTGRESQL, StorageError
from app.config.dburl import kind as url_kind

PREFIX = "NINJA_"
PROJECT_ROOT = Path(__file__).resolve().parents[2]
EDITORS = ("ace", "plain")
MODES = ("local", "classroom")  # local: one person, no sign-in; classroom: sign-in required
AUTH_KEYS = ("redirect_uri", "cookie_secret", "client_id", "client_secret", "server_metadata_url")
CALLBACK = "/oauth2callback"  # the path Streamlit's sign-in answers on (redirect_uri ends with it)
SECRETS_FILE = ".streamlit/secrets.toml"
MAX_TIME_LIMIT = 300.0  # seconds: a grading that holds a slot longer starves the class
MAX_WORKER_CONCURRENCY = 2  # training runs per worker process (the grader's own cap)
# Settings that may instead be read from a file named by NINJA_<SETTING>_FILE (a systemd
# credential, a container secret), so that a password need not sit in an environment file.
FROM_FILE = ("database_url",)
FILE_SUFFIX = "_FILE"
MAX_SECRET_BYTES = 4096


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
    mode: str = "local"  # "classroom": everyone signs in through the [auth] provider
    instructors: tuple[str, ...] = ()  # classroom: instructors' e-mail addresses, lower case
    instructor_claim: tuple[str, str] | None = None  # classroom: (claim, value) naming instructors
    instructor_ids: tuple[str, ...] = ()  # classroom: instructors by identity, "<issuer> <subject>"
    issuer: str = ""  # classroom: the issuer roles come from ("": [auth]'s discovery address)
    tenant: str = ""  # classroom: the `tid` claim a role's token must carry ("": none asked)
    secrets_file: Path | None = None  # a secrets.toml ([auth]) outside the checkout
    # Classroom sign-ins (app/classroom/sessions.py): seconds without a page, and since signing
    # in, after which a sign-in ends whatever its cookie says.
    session_idle: float = 2 * 3600.0
    session_absolute: float = 12 * 3600.0
    # What one learner may ask of the class's servers (app/classroom/quotas.py).
    quota_runs: int = 1  # training runs queued or running at once
    quota_word_lists: int = 10  # word lists uploaded in 24 hours
    quota_attempts: int = 30  # submissions in a minute, every replica counted
    quota_draft_kib: int = 64  # the longest code kept as a draft or graded, KiB

    @property
    def classroom(self) -> bool:
        """Return True in the classroom mode (sign-in required)."""
        return self.mode == "classroom"

    # Whether whoever opens the app is the course's instructor: the preview of an exercise as
    # solved, the Dashboard, the Problems page and the file problems on Home (server paths,
    # answers' paths, mistake hints). Off by default, so that a learner's own copy never offers
    # an answer in one click; an instructor sets NINJA_INSTRUCTOR=1 (learners see only that some
    # exercises are withdrawn).
    instructor: bool = False
    # Classroom training workers (`python -m app.training`): runs at once per worker process, and
    # the seconds a worker may go without a heartbeat before its runs count as interrupted
    # (the replicas read it too, to say so).
    worker_concurrency: int = 1
    worker_stale: float = 30.0

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
    for key, raw in _with_files(environ).items():
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
    _check_mode(config, set(values))
    _check_trust(config)
    if config.exercises_dir is not None and not config.exercises_dir.is_dir():
        found = config.exercises_dir
        raise ConfigError(f"`NINJA_EXERCISES_DIR` must be an exercises folder: {found} is not one.")
    if not config.database_url:
        path = (config.data_dir / "progress.sqlite3").resolve()
        config = AppConfig(**{**values, "database_url": f"sqlite:///{path}"})
    _check_database(config)
    return config


def _with_files(environ: Mapping[str, str]) -> dict[str, str]:
    """Return environ with each `NINJA_<SETTING>_FILE` replaced by `NINJA_<SETTING>` holding the
    named file's text (its first line, stripped); giving both, or an unreadable, empty or large
    file, is an error that names the setting."""
    found = dict(environ)
    for name in FROM_FILE:
        setting = PREFIX + name.upper()
        path = found.pop(setting + FILE_SUFFIX, None)
        if path is None:
            continue
        if setting in found:
            raise ConfigError(f"Set `{setting}` or `{setting}{FILE_SUFFIX}`, not both.")
        found[setting] = _read_secret(setting + FILE_SUFFIX, Path(path))
    return found


def _read_secret(setting: str, path: Path) -> str:
    """Return the one line a secret's file holds; say which setting names a bad file."""
    try:
        with path.open("rb") as file:
            data = file.read(MAX_SECRET_BYTES + 1)
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as err:
        reason = getattr(err, "strerror", None) or "not UTF-8 text"
        raise ConfigError(f"`{setting}`: cannot read {path}: {reason}.") from None
    lines = text.strip().splitlines()
    if len(data) > MAX_SECRET_BYTES or len(lines) != 1:
        raise ConfigError(
            f"`{setting}`: {path} must hold one line (the value): found {len(lines)} lines."
        )
    return lines[0].strip()


def _check_database(config: AppConfig) -> None:
    """Refuse a database URL of an unknown scheme or a malformed one (docs/settings.md)."""
    try:
        url_kind(config.database_url)
    except StorageError as err:
        raise ConfigError(f"`NINJA_DATABASE_URL`: {err}") from None


def check_database(config: AppConfig) -> None:
    """Refuse SQLite in the classroom mode: a class's replicas share one server database
    (docs/classroom.md). Checked before the server starts, with the secrets."""
    if config.classroom and url_kind(config.database_url) != POSTGRESQL:
        raise ConfigError(
            "`NINJA_MODE=classroom` needs a PostgreSQL database: set `NINJA_DATABASE_URL` to"
            " postgresql://<user>@<host>/<database> (docs/classroom.md)."
        )


def _check_mode(config: AppConfig, given: set[str]) -> None:
    """Refuse an unknown mode, roles in the local mode (they would do nothing there), and
    `NINJA_INSTRUCTOR` in the classroom mode (there, sign-in says who the instructors are)."""
    if config.mode not in MODES:
        choices = ", ".join(MODES)
        raise ConfigError(f"`NINJA_MODE` must be one of {choices}: got {config.mode!r}.")
    if config.classroom:
        if "instructor" in given:
            raise ConfigError(
                "`NINJA_INSTRUCTOR` is for the local mode: in the classroom mode instructors "
                "are named by `NINJA_INSTRUCTORS` or `NINJA_INSTRUCTOR_CLAIM`."
            )
        return
    for name in ("instructors", "instructor_claim", "instructor_ids", "issuer", "tenant"):
        if getattr(config, name):
            setting = PREFIX + name.upper()
            raise ConfigError(
                f"`{setting}` needs `NINJA_MODE=classroom`: the local mode has no roles."
            )


def _check_trust(config: AppConfig) -> None:
    """Refuse trust settings the app would misuse: an instructors' claim a person sets for
    themselves, sign-in lifetimes out of order, quotas that refuse everyone (trust.py)."""
    try:
        trust.instructor_claim(config.instructor_claim)
        trust.lifetimes(config.session_idle, config.session_absolute)
        trust.quotas(config.quota_runs, config.quota_attempts, config.quota_draft_kib)
    except trust.TrustError as err:
        raise ConfigError(str(err)) from None


def check_secrets(config: AppConfig, secrets: Mapping) -> None:
    """Refuse the classroom mode unless secrets (Streamlit's secrets.toml) hold a usable [auth].

    The local mode needs no secrets. The classroom mode signs in through the provider that [auth]
    describes, as Streamlit documents it (docs/classroom.md): every key of AUTH_KEYS, non-empty.
    """
    if not config.classroom:
        return
    auth = secrets.get("auth")
    if not isinstance(auth, Mapping):
        raise ConfigError(
            f"`NINJA_MODE=classroom` needs an [auth] section in {SECRETS_FILE} (docs/classroom.md)."
        )
    missing = [key for key in AUTH_KEYS if not isinstance(auth.get(key), str) or not auth[key]]
    if missing:
        names = ", ".join(missing)
        raise ConfigError(
            f"The [auth] section of {SECRETS_FILE} lacks {names} (docs/classroom.md)."
        )
    if not auth["redirect_uri"].rstrip("/").endswith(CALLBACK):
        raise ConfigError(
            f"[auth] redirect_uri must end with {CALLBACK}: got {auth['redirect_uri']!r}."
        )
    try:
        trust.check_provider(config.instructors, config.instructor_claim, config.tenant, auth)
    except trust.TrustError as err:
        raise ConfigError(str(err)) from None


def _convert(name: str, raw: str):
    """Return raw converted to the type of field `name`."""
    if name in ("data_dir", "exercises_dir"):
        return Path(raw).expanduser()
    if name == "secrets_file":
        return _secrets_file(name, raw)
    if name in ("require_all_layers", "instructor"):
        return _flag(name, raw)
    if name == "reveal_after" or name.startswith("quota_"):
        return _count(name, raw)
    if name in ("session_idle", "session_absolute"):
        return _seconds(name, raw)
    if name in ("instructor_ids", "issuer"):
        return _trusted(name, raw)
    if name == "worker_concurrency":
        return _concurrency(name, raw)
    if name == "worker_stale":
        return _stale(name, raw)
    if name == "grade_delay":
        return _seconds(name, raw)
    if name == "time_limit":
        return _limit(name, raw)
    if name == "instructors":
        return _emails(name, raw)
    if name == "instructor_claim":
        return _claim(name, raw)
    return raw.strip() if name in ("mode", "tenant") else raw


def _trusted(name: str, raw: str) -> tuple[str, ...] | str:
    """Return instructors' identities or an issuer (trust.py), or say what is wrong."""
    try:
        return trust.identities(name, raw) if name == "instructor_ids" else trust.issuer(name, raw)
    except trust.TrustError as err:
        raise ConfigError(str(err)) from None


def _secrets_file(name: str, raw: str) -> Path:
    """Return the path of a readable file (its TOML is checked with the secrets)."""
    path = Path(raw).expanduser()
    if not os.access(path, os.R_OK) or not path.is_file():
        raise ConfigError(f"`{PREFIX}{name.upper()}` must name a readable file: got {raw!r}.")
    return path


def _emails(name: str, raw: str) -> tuple[str, ...]:
    """Return a comma-separated list of e-mail addresses, lower case; anything else is an error."""
    found = tuple(part.strip().lower() for part in raw.split(",") if part.strip())
    for address in found:
        user, at, domain = address.partition("@")
        if not (user and at and domain) or "@" in domain or " " in address:
            raise ConfigError(
                f"`{PREFIX}{name.upper()}` must be e-mail addresses separated by commas: "
                f"got {address!r}."
            )
    return found


def _claim(name: str, raw: str) -> tuple[str, str] | None:
    """Return (claim, value) from `claim=value`; anything else is an error naming the setting."""
    if not raw.strip():
        return None
    claim, equals, value = (part.strip() for part in raw.partition("="))
    if not (claim and equals and value):
        raise ConfigError(
            f"`{PREFIX}{name.upper()}` must be claim=value (e.g. groups=staff): got {raw!r}."
        )
    return claim, value


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


def _concurrency(name: str, raw: str) -> int:
    """Return how many training runs a worker takes at once: 1 to MAX_WORKER_CONCURRENCY."""
    value = _count(name, raw)
    if not 1 <= value <= MAX_WORKER_CONCURRENCY:
        raise ConfigError(
            f"`{PREFIX}{name.upper()}` must be 1 to {MAX_WORKER_CONCURRENCY}: got {raw!r}."
        )
    return value


def _stale(name: str, raw: str) -> float:
    """Return the seconds without a heartbeat after which a worker counts as gone (above 0)."""
    value = _seconds(name, raw)
    if not value > 0:
        raise ConfigError(f"`{PREFIX}{name.upper()}` must be more than 0 seconds: got {raw!r}.")
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


def streamlit_secrets(files: list[str] | None = None) -> dict:
    """Return the secrets the server will read: the secrets.toml files named on Streamlit's
    command line (`--secrets.files`), else its option `secrets.files` (~/.streamlit/ then
    .streamlit/ here), later files winning, {} if none."""
    import streamlit as st  # only here: pages read this module, and the check runs alone

    found: dict = {}
    for name in files or st.get_option("secrets.files"):
        path = Path(name)
        if not path.is_file():
            continue
        try:
            found.update(tomllib.loads(path.read_text(encoding="utf-8")))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as err:
            raise ConfigError(f"{path} is not a readable TOML file: {err}.") from None
    return found


def secrets_files(argv: list[str]) -> list[str]:
    """Return the files that `--secrets.files X` (or `--secrets.files=X`, repeated) names in
    Streamlit's command-line options, so the check reads what the server will read."""
    files, option = [], "--secrets.files"
    for i, arg in enumerate(argv):
        if arg == option and i + 1 < len(argv):
            files.append(argv[i + 1])
        elif arg.startswith(option + "="):
            files.append(arg[len(option) + 1 :])
    return files


def main(argv: list[str] | None = None) -> int:
    """Check the configuration from the environment and the secrets; say what is wrong, if any.

    argv: the options scripts/run passes on to Streamlit (only `--secrets.files` is read)."""
    try:
        checked(secrets_files(sys.argv[1:] if argv is None else argv))
    except ConfigError as err:
        print(f"Not starting: {err}", file=sys.stderr)
        return 2
    return 0


def checked(files: list[str]) -> AppConfig:
    """Return the configuration from the environment once it passes every check: the settings,
    the secrets the server will read (these files, else Streamlit's `secrets.files`; and
    `NINJA_SECRETS_FILE`) and the database's kind; ConfigError says what is wrong. Run by
    `python -m app.config` and by the server's start (app/server.py)."""
    config = from_env(os.environ)
    files = [*files, *([str(config.secrets_file)] if config.secrets_file else [])]
    check_secrets(config, streamlit_secrets(files) if config.classroom else {})
    check_database(config)
    return config
