"""Runs each example agent loop against a real toold, behind a proxy this
test cuts in the middle of a call, and the project's scripted fake Messages
API. The script's first turn needs a permission the example's handler
gives; its second prints a line, waits for the test to cut the stream, then
prints another: the call must run once and the model get its whole output.

Run from the repository root: python3 -m unittest examples/test_examples.py
(with clients/python on PYTHONPATH; the Makefile's test-examples does it).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import unittest
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "clients", "python"))

from tests.harness import Proxy, Toold  # noqa: E402  (clients/python/tests)

DROP = "echo run >> runs.log; echo first; while [ ! -f go ]; do sleep 0.05; done; echo second; echo runs=$(wc -l < runs.log)"
SCRIPT = {"turns": [
    {"content": [{"type": "text", "text": "Let me look."},
                 {"type": "tool_use", "id": "toolu_ask", "name": "Bash", "input": {"command": "echo hello > hello.txt && cat hello.txt"}}]},
    {"content": [{"type": "tool_use", "id": "toolu_drop", "name": "Bash", "input": {"command": DROP}}]},
    {"content": [{"type": "text", "text": "All done."}], "stop_reason": "end_turn"},
]}


class Fake:
    def __init__(self, bindir: str):
        exe = os.path.join(bindir, "fakemessages")
        if not os.path.exists(exe):
            subprocess.run(["go", "build", "-o", exe, "./test/fakemessages/cmd/fakemessages"], cwd=REPO, check=True)
        d = tempfile.mkdtemp(prefix="fakemessages-")
        script = os.path.join(d, "script.json")
        with open(script, "w") as f:
            json.dump(SCRIPT, f)
        self.proc = subprocess.Popen([exe, "--script", script, "--stdin-lifeline"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        m = re.match(r"listening on (http://\S+)", line)
        if not m:
            raise RuntimeError(f"fakemessages said {line!r}")
        self.url = m.group(1)

    def requests(self):
        with urllib.request.urlopen(self.url + "/requests") as r:
            return json.load(r)

    def stop(self):
        self.proc.kill()
        self.proc.wait()
        self.proc.stdin.close()
        self.proc.stdout.close()


class ExampleTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.toold = Toold()
        cls.bindir = tempfile.mkdtemp(prefix="examples-bin-")

    @classmethod
    def tearDownClass(cls):
        cls.toold.stop()

    def run_example(self, argv, env_extra=None):
        fake = Fake(self.bindir)
        self.addCleanup(fake.stop)
        proxy = Proxy(self.toold.addr)
        self.addCleanup(proxy.close)
        env = dict(os.environ, TOOLD_ADDR=proxy.addr, ANTHROPIC_BASE_URL=fake.url, ANTHROPIC_API_KEY="fake-key",
                   PYTHONPATH=os.path.join(REPO, "clients", "python"), **(env_extra or {}))
        p = subprocess.Popen(argv, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.addCleanup(lambda: p.poll() is None and p.kill())
        stderr_lines = []
        workspace = threading.Event()
        ws = {}

        def read_stderr():
            for raw in p.stderr:
                line = raw.decode(errors="replace")
                stderr_lines.append(line)
                m = re.match(r"session \S+ workspace (\S+)", line)
                if m:
                    ws["dir"] = m.group(1)
                    workspace.set()

        t = threading.Thread(target=read_stderr, daemon=True)
        t.start()
        out = b""
        cut = False
        while True:
            chunk = p.stdout.read1(4096) if hasattr(p.stdout, "read1") else p.stdout.read(1)
            if not chunk:
                break
            out += chunk
            if not cut and b"first\n" in out:
                cut = True
                proxy.cut()
                workspace.wait()
                open(os.path.join(ws["dir"], "go"), "w").close()
        rc = p.wait()
        t.join()
        p.stdout.close()
        p.stderr.close()
        stderr = "".join(stderr_lines)
        self.assertEqual(rc, 0, f"stdout:\n{out.decode()}\nstderr:\n{stderr}\ntoold:\n{self.toold.logs()[-4000:]}")
        self.assertTrue(cut, out)
        self.assertGreaterEqual(proxy.accepted, 2, "the example did not reconnect")
        text = out.decode()
        # The live output, whole and once, and the model's last words.
        self.assertEqual(text.count("first\n"), 1, text)
        self.assertEqual(text.count("second\n"), 1, text)
        self.assertIn("hello\n", text)
        self.assertIn("All done.", text)
        self.assertIn("[approve] Bash", stderr)
        reqs = fake.requests()
        self.assertEqual(len(reqs), 3)
        self.assertEqual({t["name"] for t in reqs[0]["tools"]} >= {"Bash", "Read"}, True)
        last = reqs[2]["messages"][-1]["content"]
        self.assertEqual(last[0]["tool_use_id"], "toolu_drop")
        result = "".join(c.get("text", "") for c in last[0]["content"])
        self.assertEqual(result.strip(), "first\nsecond\nruns=1")
        first = reqs[1]["messages"][-1]["content"][0]
        self.assertEqual(first["tool_use_id"], "toolu_ask")
        self.assertFalse(first.get("is_error"), first)

    def test_python_example(self):
        self.run_example([sys.executable, os.path.join(HERE, "python", "agent_loop.py"), "Say hello, then wait."])

    def test_typescript_example(self):
        js = os.path.join(HERE, "typescript", "dist", "agent-loop.js")
        if not os.path.exists(js):
            self.fail(f"{js} is not built: run `make test-examples` (it runs npm ci and tsc)")
        self.run_example(["node", js, "Say hello, then wait."])


if __name__ == "__main__":
    unittest.main()
