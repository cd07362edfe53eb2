"""Schema 14: sign-ins kept on the server, and what one learner asks of the class (issue 34).

`sessions`: a row per sign-in of the classroom mode (named by a digest of the identity token's
issuer, subject, iat, nonce and sid), whose it is, when issued and last seen, and when and why
it ended (signed out, ended by an instructor, idle, expired): a page admits Streamlit's sign-in
cookie only while its row lives (app/classroom/sessions.py). `word_list_uploads`: which learner
uploaded which word list when (the quota of word lists a day); `quota_hits`: who met which limit,
how often and when last, for the dashboard (app/classroom/quotas.py).

Revision ID: 0009
Revises: 0008
"""

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def _profile_id() -> sa.Column:
    return sa.Column(
        "profile_id",
        sa.Integer(),
        sa.ForeignKey("profiles.id", ondelete="CASCADE"),
        nullable=False,
    )


def upgrade() -> None:
    op.create_table(
        "sessions",
        sa.Column("id", sa.Text(), primary_key=True),
        sa.Column("owner", sa.Text(), nullable=False),
        sa.Column("issued", sa.Double(), nullable=False),
        sa.Column("last_seen", sa.Double(), nullable=False),
        sa.Column("revoked", sa.Double()),
        sa.Column("reason", sa.Text(), nullable=False, server_default=""),
    )
    op.create_index("sessions_by_owner", "sessions", ["owner"])
    op.create_table(
        "word_list_uploads",
        _profile_id(),
        sa.Column("digest", sa.Text(), nullable=False),
        sa.Column("created_at", sa.Double(), nullable=False),
        sa.PrimaryKeyConstraint("profile_id", "digest"),
    )
    op.create_index("word_list_uploads_by_time", "word_list_uploads", ["profile_id", "created_at"])
    op.create_table(
        "quota_hits",
        _profile_id(),
        sa.Column("quota", sa.Text(), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.Column("last_at", sa.Double(), nullable=False),
        sa.PrimaryKeyConstraint("profile_id", "quota"),
    )
    op.execute("UPDATE meta SET value = '14' WHERE key = 'schema_version'")


def downgrade() -> None:
    op.drop_table("quota_hits")
    op.drop_index("word_list_uploads_by_time", "word_list_uploads")
    op.drop_table("word_list_uploads")
    op.drop_index("sessions_by_owner", "sessions")
    op.drop_table("sessions")
    op.execute("UPDATE meta SET value = '13' WHERE key = 'schema_version'")
