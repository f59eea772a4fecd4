"""A tiny OpenAI-compatible chat-completions server for benchmarks: every request gets one fixed,
valid JSON verdict ("no mismatch"), so a peer tool that needs an LLM can run offline on
127.0.0.1. Usage: python llm_stub.py PORT_FILE  (binds an ephemeral port, writes it to PORT_FILE
and the number of requests served so far to PORT_FILE.count).
"""

import json
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# Valid both as a single verdict ({"mismatch_detected": false}) and as a batch wrapper
# ({"results": [...]}), the two shapes the peer's alignment validator accepts.
VERDICT = json.dumps(
    {
        "mismatch_detected": False,
        "confidence": "HIGH",
        "summary": "No mismatch.",
        "results": [{"mismatch_detected": False, "confidence": "HIGH"} for _ in range(64)],
    }
)
REQUESTS = 0
COUNT_FILE = "/dev/null"


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def _send(self, code, body):
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path.rstrip("/").endswith("/models"):
            self._send(200, {"object": "list", "data": [{"id": "stub", "object": "model"}]})
        else:
            self._send(404, {"error": {"message": "not found"}})

    def do_POST(self):
        global REQUESTS
        length = int(self.headers.get("content-length") or 0)
        req = json.loads(self.rfile.read(length) or b"{}")
        REQUESTS += 1
        with open(COUNT_FILE, "w") as f:
            f.write(str(REQUESTS))
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send(404, {"error": {"message": "not found"}})
            return
        self._send(
            200,
            {
                "id": f"chatcmpl-stub-{REQUESTS}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": req.get("model", "stub"),
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": VERDICT},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            },
        )


def main():
    global COUNT_FILE
    COUNT_FILE = sys.argv[1] + ".count"
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(sys.argv[1], "w") as f:
        f.write(str(server.server_address[1]))
    server.serve_forever()


if __name__ == "__main__":
    main()
