"""A small closed-loop HTTP load generator for benchmarks against a server on loopback.

Each of ``connections`` threads sends one prepared request, reads the whole response, and sends
the next, for ``seconds``. Requests are raw bytes prepared once, so the client spends as little
as it can per request; it still shares the machine with the server, equally for every endpoint
measured, which is why the benchmarks compare endpoints within one run rather than quote
absolute rates.
"""

import socket
import threading
import time
from dataclasses import dataclass


@dataclass(frozen=True)
class Load:
    requests_per_second: float
    completed: int
    failed: int  # any status but the expected one


def prepare(
    method: str,
    path: str,
    *,
    headers: dict[str, str] | None = None,
    body: bytes = b"",
) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1"]
    lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
    if body:
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def _read_response(sock: socket.socket) -> tuple[bytes, bool]:
    """The status line, and whether the server keeps the connection open."""
    data = b""
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            return data.partition(b"\r\n")[0], False
        data += chunk
        head, found, body = data.partition(b"\r\n\r\n")
        if not found:
            continue
        fields = head.lower().split(b"\r\n")
        length = next(
            (int(f.split(b":", 1)[1]) for f in fields if f.startswith(b"content-length:")), None
        )
        if length is None or len(body) >= length:
            keep = b"connection: close" not in fields
            return fields[0], keep


def run(
    port: int,
    request: bytes | tuple[bytes, ...],
    *,
    connections: int,
    seconds: float,
    expect: bytes = b"200",
) -> Load:
    """Load the server with ``request`` (several: each client sends them in turn)."""
    requests = (request,) if isinstance(request, bytes) else request
    deadline = time.perf_counter() + seconds
    completed = [0] * connections
    failed = [0] * connections

    def client(index: int) -> None:
        sock = None
        while time.perf_counter() < deadline:
            if sock is None:
                sock = socket.create_connection(("127.0.0.1", port))
            sock.sendall(requests[(completed[index] + failed[index]) % len(requests)])
            status, keep_open = _read_response(sock)
            if status.split(b" ")[1:2] == [expect]:
                completed[index] += 1
            else:
                failed[index] += 1
            if not keep_open:
                sock.close()
                sock = None
        if sock is not None:
            sock.close()

    threads = [threading.Thread(target=client, args=(i,)) for i in range(connections)]
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - start
    return Load(sum(completed) / elapsed, sum(completed), sum(failed))
