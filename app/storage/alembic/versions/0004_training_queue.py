"""Schema 9: training runs as jobs of a task queue (the classroom mode, docs/classroom.md).

`training_queue` is a learner's run from the moment it is queued until it ends: its settings and
code, its state, the progress a worker streams (step, speed, loss curve), the report it ends
with, the Stop flag any replica may raise and the worker's heartbeat. At most one queued or
running row per profile (a unique partial index). On PostgreSQL this revision also applies the
schema of procrastinate, the queue whose jobs carry a row's id to a worker (app/training/): the
schema of the pinned release (requirements.txt), so a later release's migrations are a later
revision of ours.

Revision ID: 0004
Revises: 0003
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

TEXT, NUMBER, WHOLE = sa.Text(), sa.Double(), sa.Integer()
ACTIVE = sa.text("state IN ('queued', 'running')")


def upgrade() -> None:
    op.create_table(
        "training_queue",
        sa.Column("id", WHOLE, primary_key=True),
        sa.Column(
            "profile_id", WHOLE, sa.ForeignKey("profiles.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("state", TEXT, nullable=False),  # queued, running, finished, stopped, ...
        sa.Column("settings", TEXT, nullable=False),  # JSON
        sa.Column("code", TEXT, nullable=False),
        sa.Column("dataset", TEXT, nullable=False),
        sa.Column("step", WHOLE, nullable=False, server_default="0"),
        sa.Column("elapsed", NUMBER, nullable=False, server_default="0"),
        sa.Column("curve", TEXT, nullable=False, server_default="[]"),  # JSON
        sa.Column("report", TEXT),  # JSON, once ended
        sa.Column("stop", WHOLE, nullable=False, server_default="0"),
        sa.Column("worker", TEXT, nullable=False, server_default=""),
        sa.Column("heartbeat", NUMBER),
        sa.Column("created_at", NUMBER, nullable=False),
        sa.Column("started_at", NUMBER),
        sa.Column("ended_at", NUMBER),
    )
    op.create_index(
        "training_queue_active",
        "training_queue",
        ["profile_id"],
        unique=True,
        sqlite_where=ACTIVE,
        postgresql_where=ACTIVE,
    )
    op.create_index("training_queue_by_state", "training_queue", ["state", "id"])
    if op.get_bind().dialect.name == "postgresql":
        _procrastinate()
    op.execute("UPDATE meta SET value = '9' WHERE key = 'schema_version'")


def _procrastinate() -> None:
    """Apply procrastinate's own schema, as its release ships it (its % doubled: the driver
    reads the text as a query with parameters)."""
    from procrastinate.schema import SchemaManager

    op.get_bind().exec_driver_sql(SchemaManager.get_schema().replace("%", "%%"))


DROP_PROCRASTINATE = """
DO $$
DECLARE item record;
BEGIN
    FOR item IN SELECT oid::regprocedure AS name FROM pg_proc
                WHERE proname LIKE 'procrastinate%' AND pronamespace = 'public'::regnamespace
    LOOP EXECUTE 'DROP FUNCTION IF EXISTS ' || item.name || ' CASCADE'; END LOOP;
    FOR item IN SELECT tablename AS name FROM pg_tables
                WHERE tablename LIKE 'procrastinate%' AND schemaname = 'public'
    LOOP EXECUTE 'DROP TABLE IF EXISTS ' || quote_ident(item.name) || ' CASCADE'; END LOOP;
    FOR item IN SELECT typname AS name FROM pg_type
                WHERE typname LIKE 'procrastinate%' AND typtype = 'e'
    LOOP EXECUTE 'DROP TYPE IF EXISTS ' || quote_ident(item.name) || ' CASCADE'; END LOOP;
END;
$$;
"""


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.get_bind().exec_driver_sql(DROP_PROCRASTINATE.replace("%", "%%"))
    op.drop_table("training_queue")
    op.execute("UPDATE meta SET value = '8' WHERE key = 'schema_version'")
