"""Recording HTTP servers on 127.0.0.1 for running real provider clients against: each keeps every
request (method, path, headers with lower-case names, body) and answers it with a canned JSON
response, by default the smallest one that provider's SDKs parse (so they finish their calls
instead of retrying). `RecordingServer` speaks HTTP/1.1 (and, given a certificate, HTTPS on a
second port, for clients that only speak HTTPS); `Http2RecordingServer` HTTP/2 without
TLS, for clients that insist on it (the AWS SDK for JavaScript's Bedrock Runtime client)."""

from __future__ import annotations

import json
import ssl
import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

# An answer for every request, or a function of the request's parsed body (a judge and a
# candidate told apart by their model).
Answer = dict[str, Any] | Callable[[Any], dict[str, Any]]


@dataclass(frozen=True, slots=True)
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    raw: bytes

    def json(self) -> Any:
        return json.loads(self.raw)

    @property
    def body(self) -> Any:
        """The body as JSON, or as text when it is not JSON."""
        try:
            return json.loads(self.raw)
        except ValueError:
            return self.raw.decode("utf-8", "replace")


CHAT = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "created": 0,
    "model": "m",
    "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "ok"}}],
}
RESPONSES = {
    "id": "resp_1",
    "object": "response",
    "created_at": 0,
    "model": "m",
    "status": "completed",
    "output": [],
    "parallel_tool_calls": True,
    "tools": [],
    "tool_choice": "auto",
}
MESSAGES = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "m",
    "content": [{"type": "text", "text": "ok"}],
    "stop_reason": "end_turn",
    "stop_sequence": None,
    "usage": {"input_tokens": 1, "output_tokens": 1},
}
GEMINI = {"candidates": [{"content": {"role": "model", "parts": [{"text": "ok"}]}, "finishReason": "STOP"}]}


def provider_answer(path: str) -> dict[str, Any]:
    """The smallest answer each provider's SDKs parse, by the path they post to."""
    if path.endswith("/chat/completions"):
        return CHAT
    if path.endswith("/responses"):
        return RESPONSES
    if path.endswith("/messages"):
        return MESSAGES
    return GEMINI


def chat_events(reply: dict[str, Any]) -> str:
    """A chat completion as the server-sent events of a streamed one: the message in one chunk,
    then the finish reason with usage, then [DONE]."""
    choice = reply["choices"][0]
    base = {"id": reply["id"], "object": "chat.completion.chunk", "created": 0, "model": reply["model"]}
    chunks = [
        {**base, "choices": [{"index": 0, "delta": choice["message"], "finish_reason": None}]},
        {
            **base,
            "choices": [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        },
    ]
    return "".join(f"data: {json.dumps(chunk)}\n\n" for chunk in chunks) + "data: [DONE]\n\n"


class RecordingServer:
    def __init__(self, answer: Answer | None = None, tls: tuple[str, str] | None = None) -> None:
        """`answer` for every request, or each provider's own by path. A chat completion asked
        for with `"stream": true` is answered as server-sent events of the same message. With
        `tls` (a certificate file and its key file), the same recorder also listens for HTTPS
        on `tls_url`, for clients that only speak HTTPS (promptfoo's Vertex provider)."""
        self.requests: list[Recorded] = []
        requests, lock = self.requests, threading.Lock()

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (the name http.server calls)
                length = int(self.headers.get("Content-Length") or 0)
                recorded = Recorded(
                    "POST",
                    self.path,
                    {key.lower(): value for key, value in self.headers.items()},
                    self.rfile.read(length),
                )
                with lock:
                    requests.append(recorded)
                body = recorded.body
                if callable(answer):
                    reply = answer(body)
                else:
                    reply = answer if answer is not None else provider_answer(self.path.split("?")[0])
                streamed = isinstance(body, dict) and body.get("stream") is True and "choices" in reply
                answer_bytes = (chat_events(reply) if streamed else json.dumps(reply)).encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream" if streamed else "application/json")
                self.send_header("Content-Length", str(len(answer_bytes)))
                self.end_headers()
                self.wfile.write(answer_bytes)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.tls_server: ThreadingHTTPServer | None = None
        self.tls_thread: threading.Thread | None = None
        if tls is not None:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(*tls)
            self.tls_server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
            self.tls_server.socket = context.wrap_socket(self.tls_server.socket, server_side=True)
            self.tls_thread = threading.Thread(target=self.tls_server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def tls_host(self) -> str:
        """host:port of the HTTPS listener."""
        assert self.tls_server is not None
        return f"127.0.0.1:{self.tls_server.server_address[1]}"

    def __enter__(self) -> RecordingServer:
        self.thread.start()
        if self.tls_thread is not None:
            self.tls_thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        for server, thread in ((self.server, self.thread), (self.tls_server, self.tls_thread)):
            if server is not None and thread is not None:
                server.shutdown()
                server.server_close()
                thread.join()

    def take(self) -> list[Recorded]:
        """The requests so far, in arrival order, and a fresh start."""
        taken = list(self.requests)
        self.requests.clear()
        return taken


class Http2RecordingServer:
    """h2_recording_server.mjs run by Node; its requests are read once it has stopped."""

    def __init__(self, answer: dict[str, Any]) -> None:
        self.requests: list[Recorded] = []
        self.process = subprocess.Popen(
            ["node", str(Path(__file__).with_name("h2_recording_server.mjs")), json.dumps(answer)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )
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
            self.requests.append(
                Recorded(request["method"], request["path"], request["headers"], request["body"].encode())
            )
