"""Schema 8: who each signed-in identity is (the instructor's dashboard names learners and
filters them by group): name, e-mail, groups from the provider's claims (a JSON list), role, and
when last seen. Keyed by the identity a profile's owner holds.

Revision ID: 0003
Revises: 0002
"""

from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        "CREATE TABLE IF NOT EXISTS people ("
        " owner TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL DEFAULT '',"
        " groups TEXT NOT NULL DEFAULT '[]', role TEXT NOT NULL DEFAULT 'learner',"
        " last_seen REAL NOT NULL)"
    )
    op.execute("UPDATE meta SET value = '8' WHERE key = 'schema_version'")


def downgrade() -> None:
    op.drop_table("people")
    op.execute("UPDATE meta SET value = '7' WHERE key = 'schema_version'")
