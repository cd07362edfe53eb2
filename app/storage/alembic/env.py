"""Alembic's environment: run the revisions on the connection that app/storage/schema.py
hands over (`config.attributes["connection"]`), inside its transaction."""

from alembic import context

connection = context.config.attributes["connection"]
context.configure(connection=connection, transaction_per_migration=False)
with context.begin_transaction():
    context.run_migrations()
