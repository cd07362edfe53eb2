"""Schema 7: indexes for reading a whole class (the instructor's grid, who is stuck now):
attempts and events by course, exercise and time, whoever made them.

Revision ID: 0002
Revises: 0001
"""

from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("attempts_by_class", "attempts", ["course_id", "exercise_id", "created_at"])
    op.create_index("events_by_class", "events", ["course_id", "exercise_id", "profile_id"])
    op.execute("UPDATE meta SET value = '7' WHERE key = 'schema_version'")


def downgrade() -> None:
    op.drop_index("events_by_class", "events")
    op.drop_index("attempts_by_class", "attempts")
    op.execute("UPDATE meta SET value = '6' WHERE key = 'schema_version'")
