"""HTTP handlers (ThreadingHTTPServer: one thread per request)."""

import json
import mimetypes
import uuid
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

from fileshare import auth
from fileshare.config import Config
from fileshare.db import Database
from fileshare.storage import Storage


class App:
    def __init__(self, config: Config, users: auth.Users) -> None:
        self.config = config
        self.users = users
        self.db = Database(config.database)
        self.storage = Storage(config.storage_dir)


def make_handler(app: App):
    class Handler(BaseHTTPRequestHandler):
        def send_json(self, status: int, payload) -> None:
            body = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def user(self):
            return app.users.check(self.headers.get("Authorization"))

        def do_POST(self):
            url = urlparse(self.path)
            if url.path != "/files":
                return self.send_json(HTTPStatus.NOT_FOUND, {"error": "not found"})
            owner = self.user()
            if owner is None:
                return self.send_json(HTTPStatus.UNAUTHORIZED, {"error": "missing or bad credentials"})
            length = int(self.headers.get("Content-Length") or 0)
            if length > app.config.max_upload_bytes:
                return self.send_json(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, {"error": "file too large"})
            name = parse_qs(url.query).get("name", ["upload.bin"])[0]
            written = app.storage.save(owner, name, self.rfile, length)
            file_id = uuid.uuid4().hex
            token = auth.new_token()
            app.db.add_file(file_id, owner, name, written, token)
            self.send_json(HTTPStatus.CREATED, {"id": file_id, "link": f"/files/{file_id}?token={token}"})

        def do_GET(self):
            url = urlparse(self.path)
            if url.path == "/files":
                return self.list_files(url)
            if url.path.startswith("/files/"):
                return self.download(url)
            self.send_json(HTTPStatus.NOT_FOUND, {"error": "not found"})

        def list_files(self, url):
            owner = self.user()
            if owner is None:
                return self.send_json(HTTPStatus.UNAUTHORIZED, {"error": "missing or bad credentials"})
            query = parse_qs(url.query)
            page = max(0, int(query.get("page", ["0"])[0]))
            size = app.config.page_size
            rows = app.db.files_of(owner, query.get("order", ["created"])[0])
            items = rows[page * size:(page + 1) * size + 1]
            self.send_json(HTTPStatus.OK, {
                "page": page,
                "files": [{"id": r["id"], "name": r["name"], "size": r["size"], "downloads": r["downloads"]}
                          for r in items],
                "more": len(rows) > (page + 1) * size,
            })

        def download(self, url):
            file_id = url.path[len("/files/"):]
            row = app.db.get_file(file_id)
            token = parse_qs(url.query).get("token", [""])[0]
            if row is None or not auth.check_file_token(token, row["token"]):
                return self.send_json(HTTPStatus.NOT_FOUND, {"error": "not found"})
            path = app.storage.path_for(row["owner"], row["name"])
            data = open(path, "rb").read()
            app.db.set_downloads(file_id, row["downloads"] + 1)
            self.send_response(HTTPStatus.OK)
            self.send_header("Content-Type", mimetypes.guess_type(row["name"])[0] or "application/octet-stream")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Content-Disposition", f'attachment; filename="{row["name"]}"')
            self.end_headers()
            self.wfile.write(data)

        def do_DELETE(self):
            url = urlparse(self.path)
            owner = self.user()
            row = app.db.get_file(url.path[len("/files/"):]) if url.path.startswith("/files/") else None
            if owner is None or row is None or row["owner"] != owner:
                return self.send_json(HTTPStatus.NOT_FOUND, {"error": "not found"})
            app.storage.delete(owner, row["name"])
            app.db.delete_file(row["id"])
            self.send_json(HTTPStatus.OK, {"deleted": row["id"]})

    return Handler


def serve(app: App, host: str = "127.0.0.1", port: int = 8000) -> None:
    ThreadingHTTPServer((host, port), make_handler(app)).serve_forever()
