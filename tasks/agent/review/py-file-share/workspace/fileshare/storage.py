"""Where the uploaded bytes live: one directory per owner under the storage root."""

import os
import shutil
from pathlib import Path


class Storage:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.root.mkdir(parents=True, exist_ok=True)

    def _owner_dir(self, owner: str) -> Path:
        safe = "".join(c for c in owner if c.isalnum() or c in "-_")
        directory = self.root / safe
        directory.mkdir(exist_ok=True)
        return directory

    def path_for(self, owner: str, filename: str) -> Path:
        return self._owner_dir(owner) / filename

    def save(self, owner: str, filename: str, stream, length: int) -> int:
        target = self.path_for(owner, filename)
        written = 0
        with open(target, "wb") as out:
            while written < length:
                chunk = stream.read(min(65536, length - written))
                if not chunk:
                    break
                out.write(chunk)
                written += len(chunk)
        return written

    def delete(self, owner: str, filename: str) -> None:
        try:
            os.remove(self.path_for(owner, filename))
        except FileNotFoundError:
            pass

    def usage(self, owner: str) -> int:
        return sum(p.stat().st_size for p in self._owner_dir(owner).iterdir() if p.is_file())

    def wipe(self, owner: str) -> None:
        shutil.rmtree(self._owner_dir(owner), ignore_errors=True)
