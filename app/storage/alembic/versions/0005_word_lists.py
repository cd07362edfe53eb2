"""Schema 10: uploaded word lists kept in the database, so that every replica and every
training worker of a class can read a learner's upload (docs/classroom.md).

A learner's dataset choice names its upload by a path under the uploads folder of the replica
that cleaned it (`upload:<path>`); the path's folder is the words' digest. Another process finds
the words here by that digest and writes its own copy (app/storage/wordlists.py).

Revision ID: 0005
Revises: 0004
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "word_lists",
        sa.Column("digest", sa.Text(), primary_key=True),  # sha256 of the words, 12 hex digits
        sa.Column("name", sa.Text(), nullable=False),  # the file name the words are kept as
        sa.Column("words", sa.Text(), nullable=False),  # the cleaned words, one per line
        sa.Column("created_at", sa.Double(), nullable=False),
    )
    op.execute("UPDATE meta SET value = '10' WHERE key = 'schema_version'")


def downgrade() -> None:
    op.drop_table("word_lists")
    op.execute("UPDATE meta SET value = '9' WHERE key = 'schema_version'")
