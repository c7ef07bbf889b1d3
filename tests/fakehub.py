"""A local stand-in for the Hugging Face Hub HTTP API, so the real huggingface_hub code runs offline.

It serves the subset that `hf_hub_download` and `snapshot_download` use, for model and dataset repos:
repo info at a revision (`/api/{models,datasets}/ID[/revision/REV]`), the file tree
(`/api/.../ID/tree/REV`), and file resolution (`HEAD`/`GET /[datasets/]ID/resolve/REV/PATH`) with the
headers huggingface_hub checks (`X-Repo-Commit`, `ETag`, `Content-Length`; `Range` for resumes).
Errors carry the Hub's `X-Error-Code`/`X-Error-Message` headers, from which huggingface_hub builds its
exceptions: unknown repos, revisions and files, gated repos (401 without a token, 403 for a token without
access) and rejected tokens (401). Point a process at it with `env()`: `HF_ENDPOINT` plus private
`HF_HOME`/`HF_HUB_CACHE` folders.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit


@dataclass
class FakeRepo:
    repo_id: str
    repo_type: str
    gated: bool = False
    private: bool = False
    commits: dict[str, dict[str, bytes]] = field(default_factory=dict)
    refs: dict[str, str] = field(default_factory=dict)

    def resolve(self, revision: str) -> str | None:
        if revision in self.refs:
            return self.refs[revision]
        return revision if revision in self.commits else None


class FakeHub:
    """`with FakeHub() as hub: hub.add_repo(...); subprocess.run(..., env=hub.env(tmp))`."""

    def __init__(self) -> None:
        self.repos: dict[tuple[str, str], FakeRepo] = {}
        self.tokens: dict[str, set[str]] = {}  # token -> repo ids it may read when gated/private ("*": all)
        self.requests: list[dict] = []  # method, path, status, and whether an Authorization header came
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- content ---------------------------------------------------------------------------------

    def add_repo(self, repo_id: str, files: Mapping[str, bytes] | Path, *, repo_type: str = "model",
                 gated: bool = False, private: bool = False, branch: str = "main") -> str:
        """Commit `files` (a mapping or a local folder) to `branch`; returns the new commit sha."""
        if isinstance(files, Path):
            files = {p.relative_to(files).as_posix(): p.read_bytes() for p in sorted(files.rglob("*")) if p.is_file()}
        key = (repo_type, repo_id)
        repo = self.repos.setdefault(key, FakeRepo(repo_id, repo_type, gated=gated, private=private))
        parent = repo.refs.get(branch, "")
        digest = hashlib.sha1(f"{repo_type}/{repo_id}@{parent}".encode())
        for path, data in sorted(files.items()):
            digest.update(f"{path}:{hashlib.sha256(data).hexdigest()}\n".encode())
        sha = digest.hexdigest()
        repo.commits[sha] = dict(files)
        repo.refs[branch] = sha
        return sha

    def tag(self, repo_id: str, name: str, revision: str = "main", *, repo_type: str = "model") -> str:
        repo = self.repos[(repo_type, repo_id)]
        repo.refs[name] = repo.resolve(revision)
        return repo.refs[name]

    def add_token(self, token: str, *, grants: tuple[str, ...] = ("*",)) -> None:
        self.tokens[token] = set(grants)

    # -- server ----------------------------------------------------------------------------------

    @property
    def url(self) -> str:
        assert self._server is not None, "FakeHub not started"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def env(self, home: Path) -> dict[str, str]:
        """Environment for a process that should talk to this hub, with its caches under `home`."""
        return {
            "HF_ENDPOINT": self.url, "HF_HOME": str(home / "hf-home"), "HF_HUB_CACHE": str(home / "hf-cache"),
            "HF_HUB_DISABLE_TELEMETRY": "1", "HF_HUB_DISABLE_PROGRESS_BARS": "1", "HF_HUB_OFFLINE": "0",
            "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost",
        }

    def start(self) -> FakeHub:
        hub = self

        class Handler(_Handler):
            pass

        Handler.hub = hub
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="fakehub", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeHub:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class _Handler(BaseHTTPRequestHandler):
    hub: FakeHub
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:  # keep test output clean
        pass

    def do_HEAD(self) -> None:
        self._dispatch(body=False)

    def do_GET(self) -> None:
        self._dispatch(body=True)

    # -- routing ---------------------------------------------------------------------------------

    def _dispatch(self, body: bool) -> None:
        self._send_body, self._status = body, None
        parts = [unquote(p) for p in urlsplit(self.path).path.split("/") if p]
        try:
            if parts[:1] == ["api"] and len(parts) >= 4 and parts[1] in ("models", "datasets"):
                self._api(parts[1][:-1], f"{parts[2]}/{parts[3]}", parts[4:])
            elif parts[:1] == ["datasets"] and len(parts) >= 5 and parts[3] == "resolve":
                self._resolve("dataset", f"{parts[1]}/{parts[2]}", parts[4], "/".join(parts[5:]))
            elif len(parts) >= 4 and parts[2] == "resolve":
                self._resolve("model", f"{parts[0]}/{parts[1]}", parts[3], "/".join(parts[4:]))
            else:
                self._error(404, None, "Not Found")
        finally:
            self.hub.requests.append({"method": self.command, "path": self.path, "status": self._status,
                                      "auth": "authorization" in {k.lower() for k in self.headers}})

    def _api(self, repo_type: str, repo_id: str, rest: list[str]) -> None:
        repo = self._access(repo_type, repo_id)
        if repo is None:
            return
        if not rest or rest[0] == "revision":
            sha = self._revision(repo, rest[1] if len(rest) > 1 else "main")
            if sha is not None:
                files = repo.commits[sha]
                self._json({"id": repo_id, "sha": sha, "private": repo.private,
                            "gated": "manual" if repo.gated else False, "disabled": False,
                            "siblings": [{"rfilename": p} for p in sorted(files)]})
        elif rest[0] == "tree" and len(rest) >= 2:
            sha = self._revision(repo, rest[1])
            if sha is not None:
                self._json(_tree(repo.commits[sha], "/".join(rest[2:])))
        else:
            self._error(404, None, "Not Found")

    def _resolve(self, repo_type: str, repo_id: str, revision: str, path: str) -> None:
        repo = self._access(repo_type, repo_id)
        if repo is None:
            return
        sha = self._revision(repo, revision)
        if sha is None:
            return
        data = repo.commits[sha].get(path)
        if data is None:
            self._error(404, "EntryNotFound", f"{path} does not exist on \"{revision}\"", {"X-Repo-Commit": sha})
            return
        start, status = 0, 200
        headers = {"X-Repo-Commit": sha, "ETag": f'"{hashlib.sha256(data).hexdigest()}"',
                   "Accept-Ranges": "bytes", "Content-Type": "application/octet-stream"}
        wanted = self.headers.get("Range", "")
        if wanted.startswith("bytes=") and wanted[6:].split("-")[0].isdigit():
            start, status = int(wanted[6:].split("-")[0]), 206
            headers["Content-Range"] = f"bytes {start}-{len(data) - 1}/{len(data)}"
        self._reply(status, data[start:], headers)

    # -- access control --------------------------------------------------------------------------

    def _access(self, repo_type: str, repo_id: str) -> FakeRepo | None:
        auth = self.headers.get("Authorization", "")
        token = auth[len("Bearer "):] if auth.startswith("Bearer ") else None
        if token is not None and token not in self.hub.tokens:
            self._error(401, None, "Invalid credentials in Authorization header")
            return None
        repo = self.hub.repos.get((repo_type, repo_id))
        grants = self.hub.tokens.get(token, set()) if token else set()
        allowed = repo is not None and ("*" in grants or repo_id in grants)
        if repo is None or (repo.private and not allowed):
            self._error(404 if token else 401, "RepoNotFound", "Repository not found")
            return None
        if repo.gated and not allowed:
            if token is None:
                self._error(401, "GatedRepo", f"Access to {repo_type} {repo_id} is restricted. "
                                              "You must have access to it and be authenticated to access it.")
            else:
                self._error(403, "GatedRepo", f"Access to {repo_type} {repo_id} is restricted and you are "
                                              "not in the authorized list.")
            return None
        return repo

    def _revision(self, repo: FakeRepo, revision: str) -> str | None:
        sha = repo.resolve(revision)
        if sha is None:
            self._error(404, "RevisionNotFound", f"Invalid rev id: {revision}")
        return sha

    # -- responses -------------------------------------------------------------------------------

    def _json(self, obj: object) -> None:
        self._reply(200, json.dumps(obj).encode(), {"Content-Type": "application/json"})

    def _error(self, status: int, code: str | None, message: str, extra: dict[str, str] | None = None) -> None:
        headers = {"Content-Type": "application/json", "X-Error-Message": message, **(extra or {})}
        if code:
            headers["X-Error-Code"] = code
        self._reply(status, json.dumps({"error": message}).encode(), headers)

    def _reply(self, status: int, data: bytes, headers: dict[str, str]) -> None:
        self._status = status
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self._send_body:
            self.wfile.write(data)


def _tree(files: dict[str, bytes], under: str) -> list[dict]:
    prefix = f"{under.strip('/')}/" if under.strip("/") else ""
    entries, folders = [], set()
    for path, data in sorted(files.items()):
        if not path.startswith(prefix):
            continue
        parts = path.split("/")
        folders.update("/".join(parts[:i]) for i in range(1, len(parts)))
        blob = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
        entries.append({"type": "file", "oid": blob, "size": len(data), "path": path})
    for folder in sorted(f for f in folders if f.startswith(prefix)):
        entries.append({"type": "directory", "oid": hashlib.sha1(folder.encode()).hexdigest(), "path": folder})
    return entries
