"""Schema 6, the last one written by hand (app/storage/legacy.py): profiles of an identity,
settings, drafts, attempts with their ticket, facts, course, version and origin, hints and
reveals, pending submissions and finished training runs.

A SQLite database made by the code before Alembic is brought to schema 6 by legacy.py and
then stamped with this revision, its rows kept; an empty database is created here.

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

TEXT, NUMBER, WHOLE = sa.Text(), sa.Double(), sa.Integer()


def _profile_id() -> sa.Column:
    """Return the column that ties a row to its profile (deleted with it)."""
    return sa.Column(
        "profile_id", WHOLE, sa.ForeignKey("profiles.id", ondelete="CASCADE"), nullable=False
    )


def _course_id() -> sa.Column:
    """Return the course column (rows from before courses belong to the default course)."""
    return sa.Column("course_id", TEXT, nullable=False, server_default="default")


def _text(name: str, default: str | None = None) -> sa.Column:
    """Return a required text column, with a default when one is given."""
    return sa.Column(name, TEXT, nullable=False, server_default=default)


def upgrade() -> None:
    op.create_table("meta", sa.Column("key", TEXT, primary_key=True), _text("value"))
    op.create_table(
        "profiles",
        sa.Column("id", WHOLE, primary_key=True),
        _text("name"),
        sa.Column("created_at", NUMBER, nullable=False),
        _text("owner", ""),
        sa.UniqueConstraint("owner", "name"),
    )
    op.create_table(
        "learners",
        sa.Column("owner", TEXT, primary_key=True),
        sa.Column("last_profile", WHOLE, sa.ForeignKey("profiles.id", ondelete="SET NULL")),
    )
    op.create_table(
        "settings",
        _profile_id(),
        _text("key"),
        _text("value"),
        sa.PrimaryKeyConstraint("profile_id", "key"),
    )
    op.create_table(
        "drafts",
        _profile_id(),
        _course_id(),
        _text("exercise_id"),
        _text("code"),
        sa.Column("updated_at", NUMBER, nullable=False),
        sa.PrimaryKeyConstraint("profile_id", "course_id", "exercise_id"),
    )
    _attempts()
    op.create_table(
        "events",
        sa.Column("id", WHOLE, primary_key=True),
        _profile_id(),
        _text("exercise_id"),
        _text("kind"),
        sa.Column("created_at", NUMBER, nullable=False),
        _course_id(),
        sa.CheckConstraint("kind IN ('hint', 'reveal')"),
    )
    op.create_table(
        "submissions",
        sa.Column("ticket", TEXT, primary_key=True),
        _profile_id(),
        _text("exercise_id"),
        _text("code"),
        _text("server"),
        sa.Column("created_at", NUMBER, nullable=False),
        _course_id(),
    )
    _training_runs()
    op.execute("INSERT INTO meta (key, value) VALUES ('schema_version', '6')")


def _attempts() -> None:
    """Create the attempts table and its indexes (a ticket is unique where set)."""
    op.create_table(
        "attempts",
        sa.Column("id", WHOLE, primary_key=True),
        _profile_id(),
        _text("exercise_id"),
        _text("code"),
        sa.Column("solved", WHOLE, nullable=False),
        _text("summary"),
        sa.Column("elapsed", NUMBER, nullable=False),
        sa.Column("time_spent", NUMBER, nullable=False),
        _text("dataset"),
        sa.Column("created_at", NUMBER, nullable=False),
        sa.Column("ticket", TEXT),
        sa.Column("ran", WHOLE, nullable=False, server_default="0"),
        _text("failed_check", ""),
        _text("misconception", ""),
        _text("status", ""),
        _text("facts", "graded"),
        _course_id(),
        _text("version", ""),
        _text("origin", "editor"),
    )
    op.create_index("attempts_by_exercise", "attempts", ["profile_id", "exercise_id"])
    op.create_index("attempts_by_course", "attempts", ["profile_id", "course_id", "exercise_id"])
    where = sa.text("ticket IS NOT NULL")
    op.create_index(
        "attempts_by_ticket",
        "attempts",
        ["ticket"],
        unique=True,
        sqlite_where=where,
        postgresql_where=where,
    )


def _training_runs() -> None:
    """Create the table of finished training runs (Exercise 4)."""
    op.create_table(
        "training_runs",
        sa.Column("id", WHOLE, primary_key=True),
        _profile_id(),
        _text("settings"),
        sa.Column("train_loss", NUMBER),
        sa.Column("val_loss", NUMBER),
        _text("samples"),
        sa.Column("steps_per_s", NUMBER, nullable=False),
        sa.Column("elapsed", NUMBER, nullable=False),
        _text("curve"),
        _text("dataset"),
        _text("code"),
        sa.Column("created_at", NUMBER, nullable=False),
    )
    op.create_index("training_runs_by_profile", "training_runs", ["profile_id"])


def downgrade() -> None:
    for table in (
        "training_runs", "submissions", "events", "attempts", "drafts", "settings", "learners",
        "profiles", "meta",
    ):  # fmt: skip
        op.drop_table(table)
