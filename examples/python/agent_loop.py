"""An agent loop: the Messages API decides, toold runs the tools.

The anthropic SDK is on PyPI only, not in Debian; this calls the Messages
API over plain HTTP in the SDK's shape (messages.create). Environment:
ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, TOOLD_ADDR (default 127.0.0.1:50051).
Usage: PYTHONPATH=clients/python python3 examples/python/agent_loop.py "PROMPT"
"""
import json, os, sys, urllib.request

from toold_client import Handlers, allow, connect


def create(**body):  # anthropic.messages.create(**body), over urllib
    url = os.environ.get("ANTHROPIC_BASE_URL", "https://api.anthropic.com") + "/v1/messages"
    headers = {"content-type": "application/json", "anthropic-version": "2023-06-01",
               "x-api-key": os.environ.get("ANTHROPIC_API_KEY", "")}
    with urllib.request.urlopen(urllib.request.Request(url, json.dumps(body).encode(), headers)) as r:
        return json.load(r)


def approve(ask):
    print(f"[approve] {ask.tool_name}: {ask.reason}", file=sys.stderr)
    return allow()


def stream(p):
    if p.kind == "stdout":
        sys.stdout.write(p.data.decode(errors="replace"))
        sys.stdout.flush()


toold = connect(os.environ.get("TOOLD_ADDR", "127.0.0.1:50051"))
session = toold.create_session()
print(f"session {session.id} workspace {session.workspace}", file=sys.stderr, flush=True)
tools = toold.tools(session.id)
messages = [{"role": "user", "content": sys.argv[1] if len(sys.argv) > 1 else "List the files here."}]
while True:
    msg = create(model="claude-sonnet-4-5", max_tokens=4096, tools=tools, messages=messages)
    messages.append({"role": "assistant", "content": msg["content"]})
    if msg["stop_reason"] != "tool_use":
        print("".join(b.get("text", "") for b in msg["content"]))
        break
    uses = [b for b in msg["content"] if b["type"] == "tool_use"]
    messages.append({"role": "user", "content": toold.run(session.id, uses, Handlers(on_permission=approve, on_progress=stream))})
toold.delete_session(session.id)
