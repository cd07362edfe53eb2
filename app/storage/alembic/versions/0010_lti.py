"""Schema 15: LTI 1.3 (issue 36): the platforms (LMSs) registered to launch the tool, each
launch's state, nonce and data, kept here so that any replica may receive a launch and a nonce
is consumed once, where a launched person's scores go (their LMS's line items), and each score
sent with the LMS's answer (app/storage/lti.py).

Revision ID: 0010_lti
Revises: 0009
"""

import sqlalchemy as sa
from alembic import op

revision = "0010_lti"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "lti_registrations",
        sa.Column("issuer", sa.Text(), nullable=False),
        sa.Column("client_id", sa.Text(), nullable=False),
        sa.Column("login_url", sa.Text(), nullable=False),
        sa.Column("token_url", sa.Text(), nullable=False),
        sa.Column("keys_url", sa.Text(), nullable=False),
        sa.Column("deployments", sa.Text(), nullable=False, server_default="[]"),
        sa.PrimaryKeyConstraint("issuer", "client_id"),
    )
    op.create_table(
        "lti_state",
        sa.Column("key", sa.Text(), primary_key=True),
        sa.Column("value", sa.Text(), nullable=False),
        sa.Column("expires_at", sa.Double(), nullable=False),
    )
    op.create_table(
        "lti_links",
        sa.Column("identity", sa.Text(), nullable=False),
        sa.Column("resource_link", sa.Text(), nullable=False),
        sa.Column("issuer", sa.Text(), nullable=False),
        sa.Column("client_id", sa.Text(), nullable=False),
        sa.Column("user_id", sa.Text(), nullable=False),
        sa.Column("lineitems", sa.Text(), nullable=False),
        sa.Column("updated_at", sa.Double(), nullable=False),
        sa.PrimaryKeyConstraint("identity", "resource_link"),
    )
    op.create_table(
        "lti_pushes",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("identity", sa.Text(), nullable=False),
        sa.Column("item", sa.Text(), nullable=False),
        sa.Column("points", sa.Double(), nullable=False),
        sa.Column("out_of", sa.Double(), nullable=False),
        sa.Column("at", sa.Double(), nullable=False),
        sa.Column("status", sa.Integer(), nullable=False),
        sa.Column("answer", sa.Text(), nullable=False, server_default=""),
    )
    op.create_index("lti_pushes_by_identity", "lti_pushes", ["identity", "id"])
    op.execute("UPDATE meta SET value = '15' WHERE key = 'schema_version'")


def downgrade() -> None:
    op.drop_index("lti_pushes_by_identity", "lti_pushes")
    op.drop_table("lti_pushes")
    op.drop_table("lti_links")
    op.drop_table("lti_state")
    op.drop_table("lti_registrations")
    op.execute("UPDATE meta SET value = '14' WHERE key = 'schema_version'")
