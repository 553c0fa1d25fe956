#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""A fake model server for the harness end-to-end tests: OpenAI's chat
completions and Responses APIs, Anthropic's Messages API.

    fake_model.py --script FILE --log FILE --port-file FILE [--canary-file FILE]
                  [--lifetime SECONDS] [--host ADDR] [--port N] [--tls CERT KEY]
    fake_model.py tool-result LOG CALL_ID     print what the harness answered
    fake_model.py tool-results LOG DIR        each answer into DIR/<call id>

Listens on 127.0.0.1 (or --host) on a free port (written to --port-file once listening)
and serves
    POST /v1/chat/completions       OpenAI chat completions (OpenCode), streamed
                                    (SSE) or not
    GET  /v1/models                 one model, "fake-model"
    GET  /api.json                  a model catalogue as models.opencode.ai's:
                                    OpenCode Zen with one free model, "fake-free"
    POST /v1/responses              OpenAI Responses API (Codex), streamed
    GET  /v1/responses (WebSocket)  the same as a WebSocket (RFC 6455), as Codex
                                    asks for it first: each "response.create"
                                    message (a POST's body, or what follows a
                                    previous_response_id of the connection's)
                                    answered with the same events, a text
                                    message each
    POST /v1/messages               Anthropic Messages API (Claude Code, which
                                    adds ?beta=true), streamed (SSE) or not
    POST /v1/messages/count_tokens  a constant count
Every request is appended to --log as one JSON line (its method, path, body,
and the credential headers it carried: authorization, x-api-key), so the
test can check what the harness sent to the model; a WebSocket's opening
as method "WEBSOCKET", and each of its messages as a "WS" request to its
path, with the opening's credentials and the whole conversation as body.
With --tls, HTTPS with that certificate and key (a provider's API behind
its real name, in a test of the proxy's TLS path); --port, a given port
instead of a free one.

The replies follow --script (read at each request, so it may be written
after the server started), a JSON list of tool calls, the same for every API:
    [{"name": "write", "arguments": {...}}, ...]
("arguments" is the Messages API's tool_use "input").  A request that offers
tools gets the next call of the script: the number of tool calls the model
already made in its conversation (assistant tool_calls, tool_use blocks,
function_call items) says which one.  The N-th call (from 1) has the id
"call_N" in every API.  When the script is done, or when the request offers
no tools (a title or summary request), the reply is plain text.  The server
is stateless but for a WebSocket's responses: the conversation in the
request is the state.

With --canary-file, a second listener on another free loopback port (written
to the file) records any connection to it as a line "connected" in
--canary-file + ".hits": the sandboxed command must not reach it.

The server stops by itself after --lifetime seconds (default 300).  Python's
standard library only.
"""

import argparse
import base64
import hashlib
import json
import os
import socket
import ssl
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ARGS = None
LOG_LOCK = threading.Lock()
FINAL_TEXT = "All scripted steps are done."


# models.opencode.ai/api.json, as OpenCode reads it: its own gateway, one model
CATALOGUE = {"opencode": {
    "id": "opencode", "name": "OpenCode Zen", "env": ["OPENCODE_API_KEY"],
    "npm": "@ai-sdk/openai-compatible", "api": "https://opencode.ai/zen/v1",
    "models": {"fake-free": {
        "id": "fake-free", "name": "Fake (free)", "family": "fake", "attachment": False,
        "reasoning": False, "tool_call": True, "temperature": True,
        "release_date": "2026-01-01", "last_updated": "2026-01-01",
        "modalities": {"input": ["text"], "output": ["text"]}, "open_weights": True,
        "limit": {"context": 100000, "output": 8000}, "cost": {"input": 0, "output": 0}}}},
    # what OpenCode needs to know of a model of OpenAI's by its real name
    "openai": {
        "id": "openai", "name": "OpenAI", "env": ["OPENAI_API_KEY"],
        "npm": "@ai-sdk/openai", "models": {"gpt-5.1": {
            "id": "gpt-5.1", "name": "GPT-5.1", "family": "gpt", "attachment": False,
            "reasoning": False, "tool_call": True, "temperature": True,
            "release_date": "2026-01-01", "last_updated": "2026-01-01",
            "modalities": {"input": ["text"], "output": ["text"]}, "open_weights": False,
            "limit": {"context": 100000, "output": 8000}, "cost": {"input": 0, "output": 0}}}}}


def log_request(handler, body, method=None):
    keys = {h: handler.headers.get(h) for h in ("authorization", "x-api-key")
            if handler.headers.get(h) is not None}
    with LOG_LOCK, open(ARGS.log, "a", encoding="utf-8") as f:
        f.write(json.dumps({"t": time.time(), "method": method or handler.command,
                            "path": handler.path, "body": body, "keys": keys}) + "\n")


WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def ws_read(rfile):
    """One message from a WebSocket client: (opcode, payload), fragments
    joined; None when the connection ends."""
    op, data = None, b""
    while True:
        head = rfile.read(2)
        if len(head) < 2:
            return None
        n = head[1] & 0x7F
        if n == 126:
            n = struct.unpack("!H", rfile.read(2))[0]
        elif n == 127:
            n = struct.unpack("!Q", rfile.read(8))[0]
        mask = rfile.read(4) if head[1] & 0x80 else b"\0\0\0\0"
        part = rfile.read(n)
        if len(part) < n:
            return None
        part = bytes(b ^ mask[i % 4] for i, b in enumerate(part))
        if head[0] & 0x0F >= 8:  # a control frame, between fragments too
            return head[0] & 0x0F, part
        op = op if op is not None else head[0] & 0x0F
        data += part
        if head[0] & 0x80:
            return op, data


def ws_send(wfile, op, payload):
    n = len(payload)
    head = bytes([0x80 | op]) + (bytes([n]) if n < 126 else
                                 struct.pack("!BH", 126, n) if n < 65536 else
                                 struct.pack("!BQ", 127, n))
    wfile.write(head + payload)
    wfile.flush()


def load_script():
    """Read at each request, so that the test can write it once the ports
    are known."""
    try:
        with open(ARGS.script, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return []


def count_tool_calls(req):
    """Tool calls the model already made in the conversation REQ carries:
    chat completions' assistant tool_calls, the Messages API's assistant
    tool_use blocks, the Responses API's function_call input items."""
    n = 0
    for m in req.get("messages") or []:
        if not isinstance(m, dict) or m.get("role") != "assistant":
            continue
        n += len(m.get("tool_calls") or [])
        content = m.get("content")
        if isinstance(content, list):
            n += sum(1 for b in content if isinstance(b, dict) and b.get("type") == "tool_use")
    items = req.get("input")
    if isinstance(items, list):
        n += sum(1 for it in items if isinstance(it, dict) and it.get("type") == "function_call")
    return n


def tool_names(req):
    """The names of the tools REQ offers: {"function": {"name"}} in chat
    completions, {"name"} in the Messages and Responses APIs (and in the
    namespaces of a Responses "additional_tools" input item)."""
    names = set()
    tools = list(req.get("tools") or [])
    # the Responses API as Codex speaks it to OpenAI: tools in an input item
    # of their own, grouped in namespaces
    for it in req.get("input") if isinstance(req.get("input"), list) else []:
        if isinstance(it, dict) and it.get("type") == "additional_tools":
            tools += it.get("tools") or []
    while tools:
        t = tools.pop()
        if not isinstance(t, dict):
            continue
        fn = t.get("function")
        if t.get("type") == "namespace":
            tools += t.get("tools") or []
        elif isinstance(fn, dict) and "name" in fn:
            names.add(fn["name"])
        elif isinstance(t.get("name"), str):
            names.add(t["name"])
    return names


def next_action(req):
    """("tool", index, call) or ("text", text)."""
    names = tool_names(req)
    if not names:
        return ("text", "Sandbox test")
    script = load_script()
    i = count_tool_calls(req)
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

    def start_sse(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

    def sse(self, data, name=None):
        """One server-sent event; NAME for the APIs that name their events."""
        head = "event: %s\n" % name if name else ""
        self.wfile.write((head + "data: " + json.dumps(data) + "\n\n").encode())
        self.wfile.flush()

    def websocket(self):
        """The Responses API over a WebSocket, as Codex speaks it: a
        "response.create" message (a POST's body, maybe continuing a
        previous response of this connection) gets the streamed events, a
        message each."""
        log_request(self, None, "WEBSOCKET")
        accept = base64.b64encode(hashlib.sha1(
            (self.headers.get("Sec-WebSocket-Key", "") + WS_GUID).encode()).digest()).decode()
        self.send_response(101)
        self.send_header("Upgrade", "websocket")
        self.send_header("Connection", "Upgrade")
        self.send_header("Sec-WebSocket-Accept", accept)
        self.end_headers()
        self.wfile.flush()
        self.close_connection = True
        done = {}  # response id: the conversation up to and with its output
        while True:
            msg = ws_read(self.rfile)
            if msg is None or msg[0] == 8:
                if msg is not None:
                    ws_send(self.wfile, 8, msg[1][:2])
                return
            if msg[0] == 9:
                ws_send(self.wfile, 10, msg[1])
                continue
            if msg[0] != 1:
                continue
            try:
                req = json.loads(msg[1])
            except ValueError:
                req = {"unparsed": msg[1].decode("utf-8", "replace")}
            if req.get("type") != "response.create":
                continue
            req = {k: v for k, v in req.items() if k != "type"}
            before = done.get(req.get("previous_response_id"), [])
            req["input"] = before + list(req.get("input") or [])
            log_request(self, req, "WS")
            events = self.responses_events(req)
            for n, (name, data) in enumerate(events):
                ws_send(self.wfile, 1, json.dumps(dict(data, type=name,
                                                       sequence_number=n)).encode())
            response = events[-1][1]["response"]
            done[response["id"]] = req["input"] + response["output"]

    def do_GET(self):
        if (self.headers.get("Upgrade", "").lower() == "websocket" and
                self.path.split("?")[0].rstrip("/").endswith("/responses")):
            return self.websocket()
        log_request(self, None)
        if self.path.split("?")[0] == "/api.json":
            self.send_json(200, CATALOGUE)
        elif self.path.split("?")[0].rstrip("/").endswith("/models"):
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
        log_request(self, req)
        path = self.path.split("?")[0].rstrip("/")
        if path.endswith("/chat/completions"):
            self.chat_completions(req)
        elif path.endswith("/responses"):
            self.responses_api(req)
        elif path.endswith("/messages/count_tokens"):
            self.send_json(200, {"input_tokens": 10})
        elif path.endswith("/messages"):
            self.messages_api(req)
        else:
            self.send_json(404, {"error": {"message": "not found"}})

    def chat_completions(self, req):
        """OpenAI chat completions (OpenCode)."""
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
        self.start_sse()

        def event(delta, finish_reason=None, with_usage=False):
            chunk = {"id": cid, "object": "chat.completion.chunk", "created": int(time.time()),
                     "model": model,
                     "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]}
            if with_usage:
                chunk["usage"] = usage
            self.sse(chunk)

        if finish == "tool_calls":
            tc = dict(tool_call, index=0)
            event({"role": "assistant", "content": None, "tool_calls": [tc]})
        else:
            event({"role": "assistant", "content": ""})
            event({"content": message["content"]})
        event({}, finish, with_usage=True)
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()

    def responses_api(self, req):
        """OpenAI's Responses API (Codex), streamed: one function_call item or
        one text message."""
        self.start_sse()
        for n, (name, data) in enumerate(self.responses_events(req)):
            self.sse(dict(data, type=name, sequence_number=n), name)

    def responses_events(self, req):
        """The Responses API's events for REQ, (name, data) each."""
        action = next_action(req)
        rid = "resp_%d" % int(time.time() * 1000000)
        if action[0] == "tool":
            _, i, call = action
            item = {"type": "function_call", "id": "fc_" + rid, "call_id": "call_%d" % (i + 1),
                    "name": call["name"], "arguments": json.dumps(call["arguments"]),
                    "status": "completed"}
            added = dict(item, arguments="", status="in_progress")
            delta = ("response.function_call_arguments.delta", {"delta": item["arguments"]})
        else:
            item = {"type": "message", "id": "msg_" + rid, "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": action[1], "annotations": []}]}
            added = dict(item, content=[], status="in_progress")
            delta = ("response.output_text.delta", {"content_index": 0, "delta": action[1]})
        usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
                 "output_tokens": 10, "output_tokens_details": {"reasoning_tokens": 0},
                 "total_tokens": 20}
        response = {"id": rid, "object": "response", "status": "completed",
                    "model": req.get("model", "fake-model"), "output": [item], "usage": usage}
        return [
            ("response.created", {"response": dict(response, status="in_progress", output=[])}),
            ("response.output_item.added", {"output_index": 0, "item": added}),
            (delta[0], dict(delta[1], output_index=0, item_id=item["id"])),
            ("response.output_item.done", {"output_index": 0, "item": item}),
            ("response.completed", {"response": response}),
        ]

    def messages_api(self, req):
        """Anthropic's Messages API (Claude Code): one tool_use block or one
        text block, streamed (SSE) or not."""
        action = next_action(req)
        if action[0] == "tool":
            _, i, call = action
            block = {"type": "tool_use", "id": "call_%d" % (i + 1), "name": call["name"],
                     "input": call["arguments"]}
            stop = "tool_use"
        else:
            block = {"type": "text", "text": action[1]}
            stop = "end_turn"
        message = {"id": "msg_%d" % int(time.time() * 1000), "type": "message",
                   "role": "assistant", "model": req.get("model", "fake-model"),
                   "content": [block], "stop_reason": stop, "stop_sequence": None,
                   "usage": {"input_tokens": 10, "output_tokens": 10,
                             "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}
        if not req.get("stream"):
            self.send_json(200, message)
            return
        self.start_sse()
        if block["type"] == "tool_use":
            start = dict(block, input={})
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        else:
            start = dict(block, text="")
            delta = {"type": "text_delta", "text": block["text"]}
        events = [
            ("message_start", {"message": dict(message, content=[], stop_reason=None,
                                               usage=dict(message["usage"], output_tokens=1))}),
            ("content_block_start", {"index": 0, "content_block": start}),
            ("content_block_delta", {"index": 0, "delta": delta}),
            ("content_block_stop", {"index": 0}),
            ("message_delta", {"delta": {"stop_reason": stop, "stop_sequence": None},
                               "usage": {"output_tokens": 10}}),
            ("message_stop", {}),
        ]
        for name, data in events:
            self.sse(dict(data, type=name), name)


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


def tool_results(body):
    """(call id, content) of every tool result in a request body: chat
    completions' tool messages, the Messages API's tool_result blocks, the
    Responses API's function_call_output items."""
    for m in body.get("messages") or []:
        if not isinstance(m, dict):
            continue
        if m.get("role") == "tool":
            yield m.get("tool_call_id"), m.get("content")
        content = m.get("content")
        if m.get("role") == "user" and isinstance(content, list):
            for b in content:
                if isinstance(b, dict) and b.get("type") == "tool_result":
                    yield b.get("tool_use_id"), b.get("content")
    items = body.get("input")
    if isinstance(items, list):
        for it in items:
            if isinstance(it, dict) and it.get("type") == "function_call_output":
                yield it.get("call_id"), it.get("output")


def last_tool_results(log):
    """{call id: content} of the tool results the harness sent, each from
    the last request that carries it.  Text blocks are joined; other
    content is JSON."""
    found = {}
    with open(log, encoding="utf-8") as f:
        for line in f:
            body = json.loads(line).get("body") or {}
            for cid, c in tool_results(body):
                if isinstance(c, list) and all(isinstance(b, dict) and b.get("type") == "text"
                                               for b in c):
                    c = "".join(b.get("text", "") for b in c)
                found[cid] = c if isinstance(c, str) else json.dumps(c)
    return found


def tool_result(log, call_id):
    """Print the content of the tool result for CALL_ID, or exit 1 if no
    request carries one."""
    found = last_tool_results(log).get(call_id)
    if found is None:
        return 1
    sys.stdout.write(found)
    return 0


def save_tool_results(log, outdir):
    """Every tool result into OUTDIR/<call id> (call ids are call_N)."""
    for cid, c in last_tool_results(log).items():
        if isinstance(cid, str) and cid.replace("_", "").isalnum():
            with open(os.path.join(outdir, cid), "w", encoding="utf-8") as f:
                f.write(c)
    return 0


def main():
    global ARGS
    if len(sys.argv) == 4 and sys.argv[1] == "tool-result":
        return tool_result(sys.argv[2], sys.argv[3])
    if len(sys.argv) == 4 and sys.argv[1] == "tool-results":
        return save_tool_results(sys.argv[2], sys.argv[3])
    p = argparse.ArgumentParser()
    p.add_argument("--script", required=True)
    p.add_argument("--log", required=True)
    p.add_argument("--port-file", required=True)
    p.add_argument("--canary-file")
    p.add_argument("--lifetime", type=float, default=300)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"))
    ARGS = p.parse_args()
    httpd = ThreadingHTTPServer((ARGS.host, ARGS.port), Handler)
    if ARGS.tls:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(ARGS.tls[0], ARGS.tls[1])
        # the handshake in the request's thread, not in accept()
        httpd.socket = ctx.wrap_socket(httpd.socket, server_side=True,
                                       do_handshake_on_connect=False)
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
