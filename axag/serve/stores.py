"""Which state store a ``--state`` value names: a PostgreSQL URL (`axag.serve.pgstate.PostgresStore`) or an SQLite
file (`axag.serve.state.SqliteStore`)."""

from __future__ import annotations

from axag.serve.state import SqliteStore, SqlStore

__all__ = ["is_database_url", "open_state"]


def is_database_url(state: str) -> bool:
    """``--state postgresql://…`` (or ``postgres://…``) names a PostgreSQL database; anything else is a file."""
    return state.startswith(("postgresql://", "postgres://"))


def open_state(state: str, *, create: bool = True) -> SqlStore:
    """The store ``state`` names: a PostgreSQL URL or an SQLite file. ``create=False``: a database without axag's
    schema is refused (`InputError`) instead of laid out."""
    if is_database_url(state):
        from axag.serve.pgstate import PostgresStore

        return PostgresStore(state, create=create)
    return SqliteStore(state)
