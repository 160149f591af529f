"""A recording server on 127.0.0.1 that stands in for the providers' APIs: it keeps every request
(path, headers, JSON body) and answers each with the smallest response that provider's SDKs parse,
so the real clients finish their calls instead of retrying."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Recorded:
    path: str
    headers: dict[str, str]
    body: Any


CHAT = {"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "m",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": "ok"}}]}
RESPONSES = {"id": "resp_1", "object": "response", "created_at": 0, "model": "m",
             "status": "completed", "output": [], "parallel_tool_calls": True, "tools": [],
             "tool_choice": "auto"}
MESSAGES = {"id": "msg_1", "type": "message", "role": "assistant", "model": "m",
            "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn",
            "usage": {"input_tokens": 1, "output_tokens": 1}}
GEMINI = {"candidates": [{"content": {"role": "model", "parts": [{"text": "ok"}]},
                          "finishReason": "STOP"}]}


def answer(path: str) -> dict[str, Any]:
    if path.endswith("/chat/completions"):
        return CHAT
    if path.endswith("/responses"):
        return RESPONSES
    if path.endswith("/messages"):
        return MESSAGES
    return GEMINI


class RecordingServer:
    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        lock = threading.Lock()
        requests = self.requests

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the standard library's name
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = raw.decode("utf-8", "replace")
                with lock:
                    requests.append(Recorded(self.path, {k.lower(): v for k, v in
                                                         self.headers.items()}, body))
                reply = json.dumps(answer(self.path.split("?")[0])).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> RecordingServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def take(self) -> list[Recorded]:
        """The requests so far, in arrival order, and a fresh start."""
        taken = list(self.requests)
        self.requests.clear()
        return taken
