"""The model socket on a remote podman host: connections to a unix socket, carried over stdin/stdout.

Runs in a container without network next to the agent's (they share the volume holding the socket).
The runner on the client side attaches to this container's stdin and stdout through podman remote and
connects each relayed connection to its filtering proxy, so the remote host needs no route to the
model and never sees its address or key. usage: python3 -I relay.py SOCKET

Frames, both ways: a 9-byte header (connection id: u32, kind: u8, length: u32) and `length` bytes.
Kinds: OPEN (a client connected), DATA, EOF (the client sent all it will: the proxy may still answer),
CLOSE (the proxy is done: the connection is closed, whatever the client is still sending), READY
(listening; sent once).
"""

import os
import socket
import struct
import sys
import threading

HEADER = struct.Struct(">IBI")
OPEN, DATA, EOF, READY, CLOSE = 0, 1, 2, 3, 4
MAX_CONNECTIONS = 64
CHUNK = 1 << 16

out = sys.stdout.buffer
out_lock = threading.Lock()
conns = {}
conns_lock = threading.Lock()


def send(cid, kind, data=b""):
    with out_lock:
        out.write(HEADER.pack(cid, kind, len(data)) + data)
        out.flush()


def read_exact(stream, n):
    data = b""
    while len(data) < n:
        chunk = stream.read(n - len(data))
        if not chunk:
            return None
        data += chunk
    return data


class Conn:
    def __init__(self, cid, sock):
        self.cid, self.sock = cid, sock

    def pump(self):
        try:
            while True:
                data = self.sock.recv(CHUNK)
                if not data:
                    break
                send(self.cid, DATA, data)
        except OSError:
            pass
        send(self.cid, EOF)

    def close(self):
        with conns_lock:
            conns.pop(self.cid, None)
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()


def accept(server):
    cid = 0
    while True:
        sock, _ = server.accept()
        with conns_lock:
            if len(conns) >= MAX_CONNECTIONS:
                sock.close()
                continue
            cid += 1
            conn = conns[cid] = Conn(cid, sock)
        send(cid, OPEN)
        threading.Thread(target=conn.pump, daemon=True).start()


def main():
    path = sys.argv[1]
    if os.path.exists(path):
        os.unlink(path)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(MAX_CONNECTIONS)
    threading.Thread(target=accept, args=(server,), daemon=True).start()
    send(0, READY)
    stdin = sys.stdin.buffer
    while True:
        header = read_exact(stdin, HEADER.size)
        if header is None:
            return  # the runner is gone: so is the model
        cid, kind, length = HEADER.unpack(header)
        data = read_exact(stdin, length) if length else b""
        if data is None:
            return
        with conns_lock:
            conn = conns.get(cid)
        if conn is None:
            continue
        try:
            if kind == DATA:
                conn.sock.sendall(data)
            elif kind == CLOSE:
                conn.close()
        except OSError:
            conn.close()


if __name__ == "__main__":
    main()
