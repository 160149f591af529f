"""Recording HTTP servers on 127.0.0.1 for running real provider clients against: each keeps every
request (method, path, headers with lower-case names, body) and answers it with one canned JSON
response. `RecordingServer` speaks HTTP/1.1; `Http2RecordingServer` HTTP/2 without TLS, for
clients that insist on it (the AWS SDK for JavaScript's Bedrock Runtime client)."""

from __future__ import annotations

import json
import subprocess
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


@dataclass(frozen=True, slots=True)
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


class RecordingServer:
    def __init__(self, answer: dict[str, Any]) -> None:
        self.requests: list[Recorded] = []
        answer_bytes = json.dumps(answer).encode()
        requests = self.requests

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (the name http.server calls)
                length = int(self.headers.get("Content-Length") or 0)
                requests.append(Recorded("POST", self.path,
                                         {key.lower(): value for key, value in self.headers.items()},
                                         self.rfile.read(length)))
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(answer_bytes)))
                self.end_headers()
                self.wfile.write(answer_bytes)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> RecordingServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()


class Http2RecordingServer:
    """h2_recording_server.mjs run by Node; its requests are read once it has stopped."""

    def __init__(self, answer: dict[str, Any]) -> None:
        self.requests: list[Recorded] = []
        self.process = subprocess.Popen(
            ["node", str(Path(__file__).with_name("h2_recording_server.mjs")), json.dumps(answer)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, encoding="utf-8")
        assert self.process.stdout is not None
        self.port = json.loads(self.process.stdout.readline())["port"]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> Http2RecordingServer:
        return self

    def __exit__(self, *exc: object) -> None:
        output, _ = self.process.communicate(timeout=60)
        # Not splitlines(): JSON.stringify leaves U+2028 and friends raw inside strings.
        for line in filter(None, output.split("\n")):
            request = json.loads(line)
            self.requests.append(Recorded(request["method"], request["path"], request["headers"],
                                          request["body"].encode()))
