#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""A fake OpenAI-compatible model server for the harness end-to-end tests.

    fake_model.py --script FILE --log FILE --port-file FILE [--canary-file FILE]
                  [--lifetime SECONDS]
    fake_model.py tool-result LOG CALL_ID     print what the harness answered

Listens on 127.0.0.1 on a free port (written to --port-file once listening)
and serves POST /v1/chat/completions, streamed (SSE) or not, GET
/v1/models, and POST /v1/responses (streamed, a text answer only: enough for
Codex to start and answer).  Every request body is appended to --log as one JSON line, so the
test can check what the harness sent to the model.

The replies follow --script (read at each request, so it may be written
after the server started), a JSON list of tool calls:
    [{"name": "write", "arguments": {...}}, ...]
A request that offers tools gets the next call of the script: the number of
assistant tool calls already in its messages says which one.  When the script
is done, or when the request offers no tools (a title or summary request), the
reply is plain text.  The server is stateless: the conversation in the request
is the state.

With --canary-file, a second listener on another free loopback port (written
to the file) records any connection to it as a line "connected" in
--canary-file + ".hits": the sandboxed command must not reach it.

The server stops by itself after --lifetime seconds (default 300).  Python's
standard library only.
"""

import argparse
import json
import os
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ARGS = None
LOG_LOCK = threading.Lock()
FINAL_TEXT = "All scripted steps are done."


def log_request(path, body):
    with LOG_LOCK, open(ARGS.log, "a", encoding="utf-8") as f:
        f.write(json.dumps({"t": time.time(), "path": path, "body": body}) + "\n")


def load_script():
    """Read at each request, so that the test can write it once the ports
    are known."""
    try:
        with open(ARGS.script, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return []


def count_tool_calls(messages):
    n = 0
    for m in messages or []:
        if isinstance(m, dict) and m.get("role") == "assistant":
            n += len(m.get("tool_calls") or [])
    return n


def tool_names(req):
    names = set()
    for t in req.get("tools") or []:
        fn = t.get("function") if isinstance(t, dict) else None
        if isinstance(fn, dict) and "name" in fn:
            names.add(fn["name"])
    return names


def next_action(req):
    """("tool", index, call) or ("text", text)."""
    names = tool_names(req)
    if not names:
        return ("text", "Sandbox test")
    script = load_script()
    i = count_tool_calls(req.get("messages"))
    if i < len(script):
        call = script[i]
        if call["name"] not in names:
            return ("text", "tool %s is not offered (offered: %s)" % (call["name"], sorted(names)))
        return ("tool", i, call)
    return ("text", FINAL_TEXT)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):  # quiet: the request log is the record
        pass

    def send_json(self, code, obj):
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        log_request(self.path, None)
        if self.path.rstrip("/").endswith("/models"):
            self.send_json(200, {"object": "list", "data": [
                {"id": "fake-model", "object": "model", "created": 0, "owned_by": "landrun"}]})
        else:
            self.send_json(404, {"error": {"message": "not found"}})

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            req = json.loads(raw or b"{}")
        except ValueError:
            req = {"unparsed": raw.decode("utf-8", "replace")}
        log_request(self.path, req)
        if self.path.rstrip("/").endswith("/responses"):
            self.responses_api(req)
            return
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self.send_json(404, {"error": {"message": "not found"}})
            return
        action = next_action(req)
        model = req.get("model", "fake-model")
        cid = "chatcmpl-%d" % int(time.time() * 1000)
        if action[0] == "tool":
            _, i, call = action
            tool_call = {"id": "call_%d" % (i + 1), "type": "function",
                         "function": {"name": call["name"],
                                      "arguments": json.dumps(call["arguments"])}}
            message = {"role": "assistant", "content": None, "tool_calls": [tool_call]}
            finish = "tool_calls"
        else:
            message = {"role": "assistant", "content": action[1]}
            finish = "stop"
        usage = {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20}
        if not req.get("stream"):
            self.send_json(200, {"id": cid, "object": "chat.completion", "created": int(time.time()),
                                 "model": model, "usage": usage,
                                 "choices": [{"index": 0, "message": message,
                                              "finish_reason": finish}]})
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()

        def event(delta, finish_reason=None, with_usage=False):
            chunk = {"id": cid, "object": "chat.completion.chunk", "created": int(time.time()),
                     "model": model,
                     "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]}
            if with_usage:
                chunk["usage"] = usage
            self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
            self.wfile.flush()

        if finish == "tool_calls":
            tc = dict(tool_call, index=0)
            event({"role": "assistant", "content": None, "tool_calls": [tc]})
        else:
            event({"role": "assistant", "content": ""})
            event({"content": message["content"]})
        event({}, finish, with_usage=True)
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()
        self.close_connection = True


    def responses_api(self, req):
        """The Responses API (Codex): a text answer only, streamed."""
        rid = "resp_%d" % int(time.time() * 1000)
        text = FINAL_TEXT
        item = {"type": "message", "id": "msg_" + rid, "role": "assistant", "status": "completed",
                "content": [{"type": "output_text", "text": text, "annotations": []}]}
        usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
                 "output_tokens": 10, "output_tokens_details": {"reasoning_tokens": 0},
                 "total_tokens": 20}
        response = {"id": rid, "object": "response", "status": "completed",
                    "model": req.get("model", "fake-model"), "output": [item], "usage": usage}
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        events = [
            ("response.created", {"response": dict(response, status="in_progress", output=[])}),
            ("response.output_item.added", {"output_index": 0, "item": dict(item, content=[])}),
            ("response.output_text.delta", {"output_index": 0, "item_id": item["id"],
                                            "content_index": 0, "delta": text}),
            ("response.output_item.done", {"output_index": 0, "item": item}),
            ("response.completed", {"response": response}),
        ]
        for n, (name, data) in enumerate(events):
            data = dict(data, type=name, sequence_number=n)
            self.wfile.write(("event: %s\ndata: %s\n\n" % (name, json.dumps(data))).encode())
            self.wfile.flush()
        self.close_connection = True


def canary(path):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0))
    s.listen(8)
    write_atomic(path, "%d\n" % s.getsockname()[1])

    def serve():
        while True:
            conn, _ = s.accept()
            with open(path + ".hits", "a") as f:
                f.write("connected\n")
            conn.close()

    threading.Thread(target=serve, daemon=True).start()


def write_atomic(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.rename(tmp, path)


def tool_result(log, call_id):
    """The content of the tool result for CALL_ID that the harness sent (the
    last request that carries it), or exit 1 if none did."""
    found = None
    with open(log, encoding="utf-8") as f:
        for line in f:
            body = json.loads(line).get("body") or {}
            for m in body.get("messages") or []:
                if isinstance(m, dict) and m.get("role") == "tool" and m.get("tool_call_id") == call_id:
                    c = m.get("content")
                    found = c if isinstance(c, str) else json.dumps(c)
    if found is None:
        return 1
    sys.stdout.write(found)
    return 0


def main():
    global ARGS
    if len(sys.argv) == 4 and sys.argv[1] == "tool-result":
        return tool_result(sys.argv[2], sys.argv[3])
    p = argparse.ArgumentParser()
    p.add_argument("--script", required=True)
    p.add_argument("--log", required=True)
    p.add_argument("--port-file", required=True)
    p.add_argument("--canary-file")
    p.add_argument("--lifetime", type=float, default=300)
    ARGS = p.parse_args()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    if ARGS.canary_file:
        canary(ARGS.canary_file)
    write_atomic(ARGS.port_file, "%d\n" % httpd.server_address[1])
    threading.Timer(ARGS.lifetime, lambda: os._exit(0)).start()
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
