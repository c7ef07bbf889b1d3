"""Who is calling: users send `Authorization: Bearer <user>:<key>`; links carry a per-file token."""

import hashlib
import hmac
import secrets


def new_token() -> str:
    return secrets.token_urlsafe(24)


def hash_key(key: str, salt: bytes) -> str:
    return hashlib.pbkdf2_hmac("sha256", key.encode(), salt, 200_000).hex()


class Users:
    """API keys per user, stored hashed."""

    def __init__(self, entries: dict[str, tuple[bytes, str]]) -> None:
        self.entries = entries  # user -> (salt, hashed key)

    def check(self, header: str | None) -> str | None:
        """The user name when the Authorization header is valid, else None."""
        if not header or not header.startswith("Bearer "):
            return None
        user, _, key = header[len("Bearer "):].partition(":")
        entry = self.entries.get(user)
        if entry is None:
            return None
        salt, expected = entry
        return user if hmac.compare_digest(hash_key(key, salt), expected) else None


def check_file_token(given: str, expected: str) -> bool:
    """Download links carry ?token=...; it must match the file's token."""
    return given == expected


def is_admin(header: str | None, admin_token: str) -> bool:
    return bool(header) and hmac.compare_digest(header, f"Admin {admin_token}")
