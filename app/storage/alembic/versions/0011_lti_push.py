"""Schema 16: LTI rosters on demand and SIS ids (issue 36): each roster (Names and Role
Provisioning Services) an instructor's launch offered, kept so that the roster may be read
again at any time, and each LMS member's SIS id (`lis_person_sourcedid`), which the books for
that LMS carry (app/storage/lti.py).

Revision ID: 0011_lti_push
Revises: 0010_lti
"""

import sqlalchemy as sa
from alembic import op

revision = "0011_lti_push"
down_revision = "0010_lti"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "lti_rosters",
        sa.Column("url", sa.Text(), primary_key=True),
        sa.Column("issuer", sa.Text(), nullable=False),
        sa.Column("client_id", sa.Text(), nullable=False),
        sa.Column("title", sa.Text(), nullable=False, server_default=""),
        sa.Column("updated_at", sa.Double(), nullable=False),
    )
    op.create_table(
        "lti_members",
        sa.Column("owner", sa.Text(), primary_key=True),
        sa.Column("sis_id", sa.Text(), nullable=False),
    )
    op.execute("UPDATE meta SET value = '16' WHERE key = 'schema_version'")


def downgrade() -> None:
    op.drop_table("lti_members")
    op.drop_table("lti_rosters")
    op.execute("UPDATE meta SET value = '15' WHERE key = 'schema_version'")
