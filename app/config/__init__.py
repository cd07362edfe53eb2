"""The floor the app stands on: its settings, its database's URL, its files kept private, and
who is at this browser. Nothing here imports the store, the grader or a page.

    >>> from app.config import from_env
    >>> from_env({"NINJA_DATA_DIR": "/tmp/ninja"}).database_url
    'sqlite:////tmp/ninja/progress.sqlite3'

settings.py reads the `NINJA_*` settings into a frozen AppConfig and checks them before the
server starts (`python -m app.config`, __main__.py); dburl.py says which engine a database URL
names; trust.py reads and checks the classroom's trust settings (roles from what the provider
proves, sign-in lifetimes, quotas); private.py keeps the data folder 0700 and its database
files 0600; identity.py is a local browser's signed identity (it reads Streamlit's session: a
page imports it, `from app.config import identity`, and nothing below the pages does).
"""

from app.config import dburl, private, trust
from app.config.dburl import StorageError
from app.config.settings import (
    MAX_WORKER_CONCURRENCY,
    AppConfig,
    ConfigError,
    check_database,
    check_secrets,
    checked,
    from_env,
    secrets_files,
    streamlit_secrets,
)

__all__ = [
    "MAX_WORKER_CONCURRENCY",
    "AppConfig",
    "ConfigError",
    "StorageError",
    "check_database",
    "check_secrets",
    "checked",
    "dburl",
    "from_env",
    "identity",
    "private",
    "secrets_files",
    "streamlit_secrets",
    "trust",
]
