"""Schema 13: the audit log (issue 37): each instructor action that reads or changes learners'
data (an export, a deletion, a regrade, a gradebook downloaded, a role changed, a learner's
history opened on the dashboard), with who, when and what (app/storage/auditlog.py). Keyed by
the learner's identity, not their profile: an entry outlives the learner it is about.

Revision ID: 0008
Revises: 0007
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "audit_log",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("created_at", sa.Double(), nullable=False),
        sa.Column("actor", sa.Text(), nullable=False),
        sa.Column("actor_name", sa.Text(), nullable=False, server_default=""),
        sa.Column("action", sa.Text(), nullable=False),
        sa.Column("subject", sa.Text(), nullable=False, server_default=""),
        sa.Column("course_id", sa.Text(), nullable=False, server_default="default"),
        sa.Column("detail", sa.Text(), nullable=False, server_default="{}"),
    )
    op.create_index("audit_log_by_subject", "audit_log", ["subject", "id"])
    op.create_index("audit_log_by_course", "audit_log", ["course_id", "id"])
    op.execute("UPDATE meta SET value = '13' WHERE key = 'schema_version'")


def downgrade() -> None:
    op.drop_index("audit_log_by_course", "audit_log")
    op.drop_index("audit_log_by_subject", "audit_log")
    op.drop_table("audit_log")
    op.execute("UPDATE meta SET value = '12' WHERE key = 'schema_version'")
