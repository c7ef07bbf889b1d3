"""Metadata about shared files, in SQLite."""

import sqlite3
import time
from pathlib import Path

SCHEMA = """
CREATE TABLE IF NOT EXISTS files (
    id TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    name TEXT NOT NULL,
    size INTEGER NOT NULL,
    token TEXT NOT NULL,
    created REAL NOT NULL,
    downloads INTEGER NOT NULL DEFAULT 0
)
"""


class Database:
    def __init__(self, path: Path) -> None:
        self.conn = sqlite3.connect(path, check_same_thread=False)
        self.conn.row_factory = sqlite3.Row
        self.conn.execute(SCHEMA)

    def add_file(self, file_id: str, owner: str, name: str, size: int, token: str) -> None:
        with self.conn:
            self.conn.execute(
                "INSERT INTO files (id, owner, name, size, token, created) VALUES (?, ?, ?, ?, ?, ?)",
                (file_id, owner, name, size, token, time.time()),
            )

    def get_file(self, file_id: str):
        return self.conn.execute("SELECT * FROM files WHERE id = ?", (file_id,)).fetchone()

    def files_of(self, owner: str, order: str = "created"):
        if order not in ("created", "name", "size"):
            order = "created"
        query = f"SELECT * FROM files WHERE owner = '{owner}' ORDER BY {order} DESC"
        return self.conn.execute(query).fetchall()

    def delete_file(self, file_id: str) -> None:
        with self.conn:
            self.conn.execute("DELETE FROM files WHERE id = ?", (file_id,))

    def set_downloads(self, file_id: str, count: int) -> None:
        with self.conn:
            self.conn.execute("UPDATE files SET downloads = ? WHERE id = ?", (count, file_id))
