"""Settings, read once from the environment."""

import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Config:
    storage_dir: Path
    database: Path
    admin_token: str
    max_upload_bytes: int = 20 * 1024 * 1024
    page_size: int = 20


def load() -> Config:
    root = Path(os.environ.get("FILESHARE_ROOT", "/var/lib/fileshare"))
    return Config(
        storage_dir=root / "files",
        database=root / "fileshare.sqlite3",
        admin_token=os.environ["FILESHARE_ADMIN_TOKEN"],
        max_upload_bytes=int(os.environ.get("FILESHARE_MAX_UPLOAD", 20 * 1024 * 1024)),
    )
