"""Schema 11: a classroom run's state is its procrastinate job's (issue 33).

`training_queue` kept a state machine of its own beside procrastinate's job (a state, a Stop
flag, the worker's name and heartbeat, a reaper); procrastinate's job now carries it (Stop is
its abort, a dead worker its stalled-job detection), and the row keeps what the job does not:
the run's settings and code, the progress its worker streams and the report it ends with, with
the id of its job. Rows from before have no job: one without a report reads as interrupted.
And `people.owner`, the table's key, is NOT NULL on SQLite too (0003 wrote it by hand; SQLite
lets a text key hold NULL unless told), so that the schema is tables.py's on both engines.

Revision ID: 0006
Revises: 0005
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

GONE = ("state", "stop", "worker", "heartbeat", "started_at", "ended_at")
ACTIVE = sa.text("state IN ('queued', 'running')")


def upgrade() -> None:
    op.drop_index("training_queue_active", "training_queue")
    op.drop_index("training_queue_by_state", "training_queue")
    with op.batch_alter_table("training_queue") as batch:
        for name in GONE:
            batch.drop_column(name)
        batch.add_column(sa.Column("job_id", sa.BigInteger()))
    op.create_index("training_queue_by_profile", "training_queue", ["profile_id", "id"])
    op.create_index("training_queue_by_job", "training_queue", ["job_id"])
    with op.batch_alter_table("people") as batch:
        batch.alter_column("owner", existing_type=sa.Text(), nullable=False)
    op.execute("UPDATE meta SET value = '11' WHERE key = 'schema_version'")


def downgrade() -> None:
    op.drop_index("training_queue_by_job", "training_queue")
    op.drop_index("training_queue_by_profile", "training_queue")
    with op.batch_alter_table("training_queue") as batch:
        batch.drop_column("job_id")
        batch.add_column(sa.Column("state", sa.Text(), nullable=False, server_default="failed"))
        batch.add_column(sa.Column("stop", sa.Integer(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("worker", sa.Text(), nullable=False, server_default=""))
        for name in ("heartbeat", "started_at", "ended_at"):
            batch.add_column(sa.Column(name, sa.Double()))
    op.create_index(
        "training_queue_active",
        "training_queue",
        ["profile_id"],
        unique=True,
        sqlite_where=ACTIVE,
        postgresql_where=ACTIVE,
    )
    op.create_index("training_queue_by_state", "training_queue", ["state", "id"])
    op.execute("UPDATE meta SET value = '10' WHERE key = 'schema_version'")
