"""The asyncio client against a real toold."""

from __future__ import annotations

import asyncio
import os

import toold_client
from toold_client import Handlers, TooldError, allow, deny
from tests.harness import Proxy, TooldTestCase
from tests.test_client import SLEEP_COMMAND, bash, run_dropped, sleep_killed, text_of


class AsyncClientTest(TooldTestCase):
    def test_run_with_async_permission_handler(self):
        async def main():
            async with toold_client.connect_async(self.toold.addr) as c:
                s = await c.create_session(mode="bypassPermissions", ask=["Bash(touch *)"])
                self.assertEqual((await c.get_session(s.id)).id, s.id)
                self.assertIn("Bash", [t["name"] for t in await c.tools(s.id)])
                asks = []

                async def on_permission(ask):
                    asks.append(ask.input["command"])
                    return allow() if "yes" in ask.input["command"] else deny("no thanks")

                blocks = [bash("toolu_1", "echo one"), bash("toolu_2", "touch yes.txt"), bash("toolu_3", "touch no.txt")]
                results = await c.run(s.id, blocks, Handlers(on_permission=on_permission))
                self.assertEqual([r["tool_use_id"] for r in results], ["toolu_1", "toolu_2", "toolu_3"])
                self.assertIn("one", text_of(results[0]))
                self.assertFalse(results[1].get("is_error"))
                self.assertTrue(results[2]["is_error"])
                self.assertIn("no thanks", text_of(results[2]))
                self.assertEqual(asks, ["touch yes.txt", "touch no.txt"])
                self.assertTrue(os.path.exists(os.path.join(s.workspace, "yes.txt")))
                self.assertFalse(os.path.exists(os.path.join(s.workspace, "no.txt")))
                results = await c.run(s.id, [bash("toolu_4", "touch nohandler.txt")])
                self.assertIn("no permission handler", text_of(results[0]))
                await c.delete_session(s.id)
                with self.assertRaises(TooldError):
                    await c.get_session(s.id)

        asyncio.run(main())

    def test_cancelling_the_task_kills_the_running_call(self):
        async def main():
            async with toold_client.connect_async(self.toold.addr) as c:
                s = await c.create_session(mode="bypassPermissions")
                block = bash("toolu_asleep", SLEEP_COMMAND.format("317.5"))
                task = None

                def on_progress(p):
                    task.cancel()

                task = asyncio.ensure_future(c.run(s.id, [block], Handlers(on_progress=on_progress)))
                with self.assertRaises(asyncio.CancelledError):
                    await task
                again = await c.run(s.id, [block])
                self.assertTrue(again[0].get("is_error"))
                self.assertEqual(text_of(again[0]), "The call was cancelled before it finished.")
                sleep_killed(self, "sleep 317[.]5")
                self.assertEqual(await c.cancel(s.id, ["toolu_asleep"]), {"toolu_asleep": "finished"})
                await c.delete_session(s.id)

        asyncio.run(main())

    def test_cut_mid_call_resumes_with_attach(self):
        proxy = Proxy(self.toold.addr)
        self.addCleanup(proxy.close)

        run_dropped(self, toold_client.connect_async, proxy)
