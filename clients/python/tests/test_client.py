"""The sync client against a real toold."""

from __future__ import annotations

import hashlib
import os
import subprocess
import tempfile
import threading
import unittest

import toold_client
from toold_client import Handlers, RetryPolicy, TooldError, UnavailableError, allow, deny
from tests.harness import Proxy, Toold, TooldTestCase, free_port


def bash(tid, command):
    return {"type": "tool_use", "id": tid, "name": "Bash", "input": {"command": command}}


def text_of(block):
    c = block["content"]
    return c if isinstance(c, str) else "".join(b.get("text", "") for b in c)


class SyncClientTest(TooldTestCase):
    def setUp(self):
        self.client = toold_client.connect(self.toold.addr)
        self.session = self.client.create_session(mode="bypassPermissions", allow=["Bash"], ask=["Bash(touch *)"])

    def tearDown(self):
        self.client.delete_session(self.session.id)
        self.client.close()

    def test_tools_is_the_messages_api_array(self):
        tools = self.client.tools(self.session.id)
        names = [t["name"] for t in tools]
        self.assertIn("Bash", names)
        for t in tools:
            self.assertEqual(set(t), {"name", "description", "input_schema"})
        bash_tool = tools[names.index("Bash")]
        self.assertEqual(bash_tool["input_schema"]["type"], "object")
        self.assertIn("command", bash_tool["input_schema"]["properties"])

    def test_session_get_and_delete(self):
        s = self.client.create_session()
        self.assertEqual(self.client.get_session(s.id).id, s.id)
        self.client.delete_session(s.id)
        with self.assertRaises(TooldError) as cm:
            self.client.get_session(s.id)
        self.assertIn("NOT_FOUND", str(cm.exception))

    def test_results_in_order_with_errors_in_band(self):
        blocks = [bash("toolu_a", "echo alpha"), bash("toolu_b", "echo beta >&2; exit 3"), bash("toolu_c", "echo gamma")]
        out = []
        results = self.client.run(self.session.id, blocks, Handlers(on_progress=out.append))
        self.assertEqual([r["tool_use_id"] for r in results], ["toolu_a", "toolu_b", "toolu_c"])
        self.assertTrue(all(r["type"] == "tool_result" for r in results))
        self.assertIn("alpha", text_of(results[0]))
        self.assertTrue(results[1].get("is_error"))
        self.assertIn("gamma", text_of(results[2]))
        stdout = b"".join(p.data for p in out if p.kind == "stdout" and p.tool_use_id == "toolu_a")
        self.assertEqual(stdout, b"alpha\n")

    def test_permission_answered_by_handler(self):
        ws = self.session.workspace
        asks = []

        def on_permission(ask):
            asks.append(ask)
            return allow()

        results = self.client.run(self.session.id, [bash("toolu_p1", "touch allowed.txt")], Handlers(on_permission=on_permission))
        self.assertFalse(results[0].get("is_error"), results)
        self.assertEqual([a.tool_name for a in asks], ["Bash"])
        self.assertEqual(asks[0].input, {"command": "touch allowed.txt"})
        self.assertTrue(os.path.exists(os.path.join(ws, "allowed.txt")))

        results = self.client.run(self.session.id, [bash("toolu_p2", "touch denied.txt")],
                                  Handlers(on_permission=lambda a: deny("not in this sprint")))
        self.assertTrue(results[0]["is_error"])
        self.assertIn("not in this sprint", text_of(results[0]))
        self.assertFalse(os.path.exists(os.path.join(ws, "denied.txt")))

    def test_permission_without_handler_is_denied_with_a_reason(self):
        results = self.client.run(self.session.id, [bash("toolu_p3", "touch nohandler.txt")])
        self.assertTrue(results[0]["is_error"])
        self.assertIn("no permission handler", text_of(results[0]))
        self.assertFalse(os.path.exists(os.path.join(self.session.workspace, "nohandler.txt")))

    def test_unary_call_and_its_fallback_to_the_stream(self):
        ws = self.session.workspace
        results = self.client.call(self.session.id, [bash("toolu_u1", "echo ran >> u.log; cat u.log")])
        self.assertFalse(results[0].get("is_error"), results)
        self.assertIn("ran", text_of(results[0]))
        # A call that asks falls back to run: the one before it is
        # replayed, not run again, and the one after it runs after it.
        asks = []

        def on_permission(ask):
            asks.append(ask.tool_use_id)
            return allow()

        blocks = [bash("toolu_u2", "echo two >> u.log"), bash("toolu_u3", "touch made.txt"), bash("toolu_u4", "ls made.txt")]
        results = self.client.call(self.session.id, blocks, Handlers(on_permission=on_permission))
        self.assertEqual([r["tool_use_id"] for r in results], ["toolu_u2", "toolu_u3", "toolu_u4"])
        self.assertEqual(asks, ["toolu_u3"])
        self.assertFalse(results[2].get("is_error"), results)
        with open(os.path.join(ws, "u.log")) as f:
            self.assertEqual(f.read(), "ran\ntwo\n")

    def test_retry_of_same_id_replays_instead_of_running(self):
        block = bash("toolu_once", "echo ran >> once.log; cat once.log")
        first = self.client.run(self.session.id, [block])
        again = self.client.run(self.session.id, [block])
        self.assertEqual(first, again)
        with open(os.path.join(self.session.workspace, "once.log")) as f:
            self.assertEqual(f.read(), "ran\n")

    def test_bad_blocks_are_refused_before_sending(self):
        for blocks, want in [([], "no tool_use"), ([{"type": "text", "text": "x"}], "not tool_use"),
                             ([{"type": "tool_use", "name": "Bash", "input": {}}], "no id"),
                             ([bash("d", "true"), bash("d", "true")], "twice")]:
            with self.assertRaises(ValueError) as cm:
                self.client.run(self.session.id, blocks)
            self.assertIn(want, str(cm.exception))

    def test_sdk_block_objects(self):
        class Block:  # what the anthropic SDK gives: pydantic models
            def __init__(self, d):
                self.d = d

            def model_dump(self):
                return self.d

        results = self.client.run(self.session.id, [Block(bash("toolu_sdk", "echo sdk"))])
        self.assertIn("sdk", text_of(results[0]))

    def test_unknown_session_is_an_error(self):
        gone = self.client.create_session()
        self.client.delete_session(gone.id)
        with self.assertRaises(TooldError) as cm:
            self.client.run(gone.id, [bash("toolu_x", "true")])
        self.assertEqual(cm.exception.code.name, "NOT_FOUND")


def sleep_killed(tc, pattern):
    """Waits (a while) for no process to match pattern; fails if one stays."""
    import time
    for _ in range(100):
        if subprocess.run(["pgrep", "-f", pattern], stdout=subprocess.DEVNULL).returncode != 0:
            return
        time.sleep(0.1)
    tc.fail(f"a process matching {pattern!r} still runs")


# The sleep is spelt through a variable so that pgrep finds the sleep, not
# a process whose command line holds the command text.
SLEEP_COMMAND = "echo started; S={}; sleep $S; echo slept"


class CancelTest(TooldTestCase):
    def test_cancel_event_kills_the_running_call(self):
        c = toold_client.connect(self.toold.addr)
        self.addCleanup(c.close)
        s = c.create_session(mode="bypassPermissions")
        stop = threading.Event()
        block = bash("toolu_sleep", SLEEP_COMMAND.format("313.5"))
        with self.assertRaises(toold_client.CancelledError):
            c.run(s.id, [block], Handlers(on_progress=lambda p: stop.set()), cancel=stop)
        # The call ended cancelled in toold: running it again replays that
        # result at once (it is not run again) and the sleep is gone.
        again = c.run(s.id, [block])
        self.assertTrue(again[0].get("is_error"))
        self.assertEqual(text_of(again[0]), "The call was cancelled before it finished.")
        sleep_killed(self, "sleep 313[.]5")
        self.assertEqual(c.cancel(s.id, ["toolu_sleep", "toolu_other"]),
                         {"toolu_sleep": "finished", "toolu_other": "not_started"})
        c.delete_session(s.id)


class DroppedStreamTest(TooldTestCase):
    """A stream cut in the middle of a call resumes: the call runs once and
    the client gets its whole output."""

    def test_cut_mid_call_resumes_with_attach(self):
        proxy = Proxy(self.toold.addr)
        self.addCleanup(proxy.close)
        run_dropped(self, toold_client.connect, proxy)


def run_dropped(tc, make_client, proxy):
    """Runs a call through proxy with make_client(proxy.addr), cutting the
    connection once the call has printed its first line."""
    import asyncio

    async def maybe(v):
        return await v if asyncio.iscoroutine(v) else v

    command = "echo run >> runs.log; echo first; while [ ! -f go ]; do sleep 0.05; done; echo second"
    ws = {}
    out = []
    cut = threading.Event()

    def on_progress(p):
        if p.kind == "stdout":
            out.append(p.data)
            if b"first" in p.data and not cut.is_set():
                cut.set()
                proxy.cut()
                open(os.path.join(ws["dir"], "go"), "w").close()

    async def main():
        client = make_client(proxy.addr)
        s = await maybe(client.create_session(mode="bypassPermissions", allow=["Bash"]))
        ws["dir"] = s.workspace
        res = await maybe(client.run(s.id, [bash("toolu_drop", command)], Handlers(on_progress=on_progress)))
        with open(os.path.join(s.workspace, "runs.log")) as f:
            runs = f.read()
        await maybe(client.delete_session(s.id))
        await maybe(client.close())
        return res, runs

    results, runs = asyncio.run(main())
    tc.assertTrue(cut.is_set())
    tc.assertGreaterEqual(proxy.accepted, 2, "the client did not reconnect")
    tc.assertEqual(b"".join(out), b"first\nsecond\n")
    tc.assertEqual(text_of(results[0]).strip(), "first\nsecond")
    tc.assertEqual(runs, "run\n")


class RetryTest(TooldTestCase):
    def test_unavailable_at_first_is_retried_under_the_same_id(self):
        direct = toold_client.connect(self.toold.addr)
        s = direct.create_session(mode="bypassPermissions")
        proxy = Proxy(self.toold.addr, refuse=3)
        self.addCleanup(proxy.close)
        c = toold_client.connect(proxy.addr, retry=RetryPolicy(max_attempts=200, initial_backoff=0.05, max_backoff=0.2))
        results = c.run(s.id, [bash("toolu_r", "echo ran >> r.log; cat r.log")])
        self.assertEqual(text_of(results[0]).strip(), "ran")
        self.assertEqual(proxy.refuse, 0)
        direct.delete_session(s.id)


class UnavailableTest(unittest.TestCase):
    def test_gives_up_after_the_policy_with_unavailable(self):
        c = toold_client.connect(f"127.0.0.1:{free_port()}", retry=RetryPolicy(max_attempts=3, initial_backoff=0.01))
        with self.assertRaises(UnavailableError):
            c.run("s", [bash("toolu_u", "true")])
        with self.assertRaises(UnavailableError):
            c.get_session("s")


class TlsTokenTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        d = tempfile.mkdtemp(prefix="toold-tls-")
        cls.cert, key = os.path.join(d, "cert.pem"), os.path.join(d, "key.pem")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                        "-keyout", key, "-out", cls.cert, "-days", "1", "-subj", "/CN=localhost",
                        "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"], check=True, capture_output=True)
        tokens = os.path.join(d, "tokens")
        cls.token = "s3cret-token"
        with open(tokens, "w") as f:
            f.write("team-a " + hashlib.sha256(cls.token.encode()).hexdigest() + "\n")
        cls.toold = Toold("--auth", "token", "--auth-tokens", tokens, "--tls-cert", cls.cert, "--tls-key", key)

    @classmethod
    def tearDownClass(cls):
        cls.toold.stop()

    def test_tls_with_bearer_token(self):
        with open(self.cert, "rb") as f:
            ca = f.read()
        with toold_client.connect(self.toold.addr, token=self.token, root_certificates=ca) as c:
            s = c.create_session(mode="bypassPermissions", allow=["Bash"])
            self.assertIn("hello", text_of(c.run(s.id, [bash("toolu_t", "echo hello")])[0]))
        with toold_client.connect(self.toold.addr, token="wrong", root_certificates=ca) as c:
            with self.assertRaises(TooldError) as cm:
                c.create_session()
            self.assertEqual(cm.exception.code.name, "UNAUTHENTICATED")


if __name__ == "__main__":
    unittest.main()
