"""Schema 12: each attempt keeps how much of it was right, for partial credit (issue 35).

A whole pass or a multi-answer exercise has parts: its gradients right of those asked
(`parts_right`, `parts`) and its checks passed of those in its list (`checks_passed`,
`checks`), as the grader counts them (grader.result.Tally). The gradebook's one scoring
function reads them when course.toml's `[grading] partial_credit` asks for partial credit. A row
from before has 0 of 0: all or nothing, as it was graded then.

Revision ID: 0007
Revises: 0006
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

COLUMNS = ("parts_right", "parts", "checks_passed", "checks")


def upgrade() -> None:
    with op.batch_alter_table("attempts") as batch:
        for name in COLUMNS:
            batch.add_column(sa.Column(name, sa.Integer(), nullable=False, server_default="0"))
    op.execute("UPDATE meta SET value = '12' WHERE key = 'schema_version'")


def downgrade() -> None:
    with op.batch_alter_table("attempts") as batch:
        for name in reversed(COLUMNS):
            batch.drop_column(name)
    op.execute("UPDATE meta SET value = '11' WHERE key = 'schema_version'")
