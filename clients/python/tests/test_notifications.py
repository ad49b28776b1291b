"""Notifications through the sync and asyncio clients, against a real toold:
a Monitor's events and end and a background command's end arrive in order,
each once, although the connection is cut in the middle of the watch."""

from __future__ import annotations

import asyncio
import unittest

import toold_client
from toold_client import RetryPolicy, TooldError, idle_turn_text, notification_text
from tests.harness import Proxy, TooldTestCase

MONITOR = {"type": "tool_use", "id": "toolu_m", "name": "Monitor",
           "input": {"command": "echo one; sleep 1; echo two; sleep 1; echo three", "description": "count", "timeout_ms": 60000}}
BACKGROUND = {"type": "tool_use", "id": "toolu_b", "name": "Bash",
              "input": {"command": "sleep 1; exit 2", "description": "Fail later", "run_in_background": True}}
RETRY = RetryPolicy(max_attempts=50, initial_backoff=0.02, max_backoff=0.2)


def ended(notes, tool_use_id):
    return any(n.tool_use_id == tool_use_id and n.status for n in notes)


class NotificationsTest(TooldTestCase):
    def check(self, notes, started):
        self.assertTrue(started[0]["content"][0]["text"].startswith("Monitor started (task "), started)
        self.assertEqual([n.seq for n in notes], list(range(1, len(notes) + 1)), "one missed or seen twice")
        events = [n.task_notification for n in notes if n.kind == "monitor_event"]
        self.assertEqual(len(events), 2, notes)
        self.assertIn("<event>one</event>", events[0])
        self.assertIn("<event>two</event>", events[1])
        end = [n for n in notes if n.kind == "shell_ended"]
        self.assertEqual(len(end), 1)
        self.assertEqual(end[0].status, "failed")
        self.assertIn('<summary>Background command "Fail later" failed with exit code 2</summary>', end[0].task_notification)
        self.assertGreater(end[0].create_time, 1.7e9)

    def test_watch_resumes_after_a_cut(self):
        proxy = Proxy(self.toold.addr)
        self.addCleanup(proxy.close)
        c = toold_client.connect(proxy.addr, retry=RETRY)
        self.addCleanup(c.close)
        s = c.create_session(mode="bypassPermissions")
        started = c.run(s.id, [MONITOR, BACKGROUND])
        notes = []
        for page in c.watch_notifications(s.id):
            if not notes:
                proxy.cut()
            notes += page.notifications
            if ended(notes, "toolu_m") and ended(notes, "toolu_b"):
                break
        self.check(notes, started)
        self.assertGreaterEqual(proxy.accepted, 2, "the client did not reconnect")
        again = c.list_notifications(s.id)
        self.assertEqual([n.seq for n in again.notifications], [n.seq for n in notes])
        self.assertEqual(again.next_after_seq, len(notes))
        self.assertEqual(c.list_notifications(s.id, again.next_after_seq).notifications, [])
        text = notification_text(again.notifications[:2])
        self.assertTrue(text.startswith("[SYSTEM NOTIFICATION - NOT USER INPUT]\n"))
        self.assertEqual(text.count("<task-notification>"), 2)
        self.assertIn("</task-notification>\n\n[SYSTEM NOTIFICATION", text)
        idle = idle_turn_text(again.notifications[0])
        self.assertTrue(idle.startswith("<system-reminder>\n[SYSTEM NOTIFICATION") and idle.endswith("</task-notification>\n</system-reminder>"))
        c.delete_session(s.id)
        with self.assertRaises(TooldError) as e:
            next(iter(c.watch_notifications(s.id)))
        self.assertEqual(e.exception.code.name, "NOT_FOUND")

    def test_async_watch(self):
        async def main():
            c = toold_client.connect_async(self.toold.addr, retry=RETRY)
            s = await c.create_session(mode="bypassPermissions")
            started = await c.run(s.id, [MONITOR, BACKGROUND])
            notes = []
            async for page in c.watch_notifications(s.id):
                notes += page.notifications
                if ended(notes, "toolu_m") and ended(notes, "toolu_b"):
                    break
            later = await c.list_notifications(s.id, notes[0].seq, limit=1)
            await c.delete_session(s.id)
            await c.close()
            return notes, started, later

        notes, started, later = asyncio.run(main())
        self.check(notes, started)
        self.assertEqual([n.seq for n in later.notifications], [2])


if __name__ == "__main__":
    unittest.main()
