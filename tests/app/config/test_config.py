"""The configuration: defaults in code, NINJA_* overrides, unknown names rejected."""

from __future__ import annotations

from pathlib import Path

import pytest

import data
from app.config import AppConfig, ConfigError, from_env


def test_defaults_keep_progress_under_the_projects_var():
    config = from_env({})
    var = Path(__file__).resolve().parents[3] / "var"
    assert config.data_dir == var and config.editor == "ace"
    assert config.database_url == f"sqlite:///{var}/progress.sqlite3"
    assert config.cache_dir == var / "cache"


def test_the_app_and_the_command_line_share_one_download_cache():
    assert from_env({}).cache_dir == data.default_cache_dir()


def test_variables_override_fields_and_other_variables_are_ignored():
    config = from_env(
        {
            "NINJA_DATA_DIR": "/srv/ninja",
            "NINJA_EDITOR": "plain",
            "HOME": "/root",
            "NINJA_DATABASE_URL": "sqlite:////db/x.sqlite3",
        }
    )
    assert config == AppConfig(Path("/srv/ninja"), "sqlite:////db/x.sqlite3", "plain", None)


def test_an_unknown_setting_is_an_error_that_lists_the_known_ones():
    with pytest.raises(
        ConfigError, match="`NINJA_DATADIR` is not a setting; known settings: NINJA_DATA_DIR"
    ):
        from_env({"NINJA_DATADIR": "/tmp"})


def test_an_unknown_editor_is_an_error():
    with pytest.raises(ConfigError, match="must be one of ace, plain: got 'vim'"):
        from_env({"NINJA_EDITOR": "vim"})


def test_an_exercises_dir_that_is_not_a_folder_is_refused(tmp_path):
    assert from_env({"NINJA_EXERCISES_DIR": str(tmp_path)}).exercises_dir == tmp_path
    with pytest.raises(ConfigError, match="`NINJA_EXERCISES_DIR` must be an exercises folder"):
        from_env({"NINJA_EXERCISES_DIR": str(tmp_path / "missing")})


@pytest.mark.parametrize(("raw", "expected"), [("0", 0), ("3", 3), (" 2 ", 2)])
def test_reveal_after_is_a_count_of_real_attempts(raw, expected):
    assert from_env({}).reveal_after == 1
    assert from_env({"NINJA_REVEAL_AFTER": raw}).reveal_after == expected


@pytest.mark.parametrize("raw", ["-1", "two", "1.5", ""])
def test_reveal_after_must_be_a_whole_number(raw):
    with pytest.raises(ConfigError, match="`NINJA_REVEAL_AFTER` must be a whole number"):
        from_env({"NINJA_REVEAL_AFTER": raw})


@pytest.mark.parametrize(("raw", "seconds"), [("0", 0.0), ("2.5", 2.5), ("", None), ("-1", None)])
def test_the_grading_delay_for_tests_is_a_number_of_seconds(raw, seconds):
    if seconds is None:
        with pytest.raises(ConfigError, match="`NINJA_GRADE_DELAY` must be a number of seconds"):
            from_env({"NINJA_GRADE_DELAY": raw})
    else:
        assert from_env({"NINJA_GRADE_DELAY": raw}).grade_delay == seconds


@pytest.mark.parametrize(("raw", "seconds"), [("5", 5.0), ("0.5", 0.5), ("300", 300.0)])
def test_the_time_limit_is_seconds_of_cpu_per_grading(raw, seconds):
    assert from_env({}).time_limit == 5.0
    assert from_env({"NINJA_TIME_LIMIT": raw}).time_limit == seconds


@pytest.mark.parametrize("raw", ["0", "-2", "301", "nan", "soon"])
def test_a_time_limit_outside_0_to_300_seconds_is_refused(raw):
    with pytest.raises(ConfigError, match="`NINJA_TIME_LIMIT` must be"):
        from_env({"NINJA_TIME_LIMIT": raw})


def test_the_workers_settings_are_settings_and_bad_ones_are_refused():
    """The classroom's env file names them for the replicas and the workers alike."""
    config = from_env({"NINJA_WORKER_CONCURRENCY": "2", "NINJA_WORKER_STALE": "12.5"})
    assert (config.worker_concurrency, config.worker_stale) == (2, 12.5)
    assert (from_env({}).worker_concurrency, from_env({}).worker_stale) == (1, 30.0)
    for name, value in (("CONCURRENCY", "3"), ("CONCURRENCY", "0"), ("STALE", "0"), ("STALE", "x")):
        with pytest.raises(ConfigError, match=f"`NINJA_WORKER_{name}` must be"):
            from_env({f"NINJA_WORKER_{name}": value})


URL = "postgresql://ninja:s3cret@db.uni.edu/class"


def test_the_database_url_may_come_from_a_file_named_by_the_environment(tmp_path):
    secret = tmp_path / "database url"
    secret.write_text(URL + "\n")
    config = from_env({"NINJA_DATABASE_URL_FILE": str(secret)})
    assert config.database_url == URL


SECRET_FILES = [
    ("missing", None, "`NINJA_DATABASE_URL_FILE`: cannot read"),
    ("empty", "", "must hold one line (the value): found 0 lines"),
    ("two lines", URL + "\nsqlite:///x\n", "must hold one line (the value): found 2 lines"),
    ("not text", b"\xff\xfe", "`NINJA_DATABASE_URL_FILE`: cannot read"),
    ("bad URL", "mysql://x/y", "`NINJA_DATABASE_URL`:"),
]


@pytest.mark.parametrize("case, content, message", SECRET_FILES, ids=[c[0] for c in SECRET_FILES])
def test_a_bad_secret_file_is_refused_naming_the_setting(tmp_path, case, content, message):
    secret = tmp_path / "url"
    if isinstance(content, bytes):
        secret.write_bytes(content)
    elif content is not None:
        secret.write_text(content)
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        from_env({"NINJA_DATABASE_URL_FILE": str(secret)})


def test_a_setting_and_its_file_together_are_refused(tmp_path):
    secret = tmp_path / "url"
    secret.write_text(URL)
    both = {"NINJA_DATABASE_URL": URL, "NINJA_DATABASE_URL_FILE": str(secret)}
    with pytest.raises(ConfigError, match="Set `NINJA_DATABASE_URL` or `NINJA_DATABASE_URL_FILE`"):
        from_env(both)


def test_only_secret_settings_come_from_files(tmp_path):
    (tmp_path / "mode").write_text("classroom")
    with pytest.raises(ConfigError, match="`NINJA_MODE_FILE` is not a setting"):
        from_env({"NINJA_MODE_FILE": str(tmp_path / "mode")})


def test_the_secrets_file_must_be_a_readable_file(tmp_path):
    named = tmp_path / "secrets.toml"
    named.write_text("[auth]\n")
    assert from_env({"NINJA_SECRETS_FILE": str(named)}).secrets_file == named
    for bad in (tmp_path / "missing.toml", tmp_path):
        with pytest.raises(ConfigError, match="`NINJA_SECRETS_FILE` must name a readable file"):
            from_env({"NINJA_SECRETS_FILE": str(bad)})
