"""Delegated calls (Agent, AskUserQuestion, ExitPlanMode) through the sync
and the asyncio client."""

from __future__ import annotations

import asyncio

import toold_client
from toold_client import Completion, Handlers, TooldError
from tests.harness import TooldTestCase
from tests.test_client import bash, text_of


def agent(tid):
    return {"type": "tool_use", "id": tid, "name": "Agent",
            "input": {"description": "Say hi", "prompt": "Say hi", "run_in_background": False}}


class DelegationTest(TooldTestCase):
    toold_args = ("--delegated-tools",)

    def test_subagent_round_trip(self):
        c = toold_client.connect(self.toold.addr)
        self.addCleanup(c.close)
        s = c.create_session(mode="bypassPermissions")
        seen = []

        def on_delegated(d):
            seen.append(d)
            out = c.run(d.child_session_id, [bash("toolu_psub", "echo hi from the subagent")])
            return Completion(text=text_of(out[0]).strip(), usage={"tokens": 5, "tool_uses": 1, "duration_ms": 20})

        results = c.run(s.id, [agent("toolu_pag")], Handlers(on_delegated=on_delegated))
        self.assertEqual(len(seen), 1)
        self.assertEqual(seen[0].tool_name, "Agent")
        self.assertTrue(seen[0].child_session_id)
        self.assertFalse(results[0].get("is_error"))
        self.assertIn("  hi from the subagent\nagentId: " + seen[0].child_session_id, text_of(results[0]))
        self.assertIn("subagent_tokens: 5", text_of(results[0]))
        with self.assertRaises(TooldError) as cm:
            c.complete_call(s.id, "toolu_pag", Completion(text="again"))
        self.assertIn("FAILED_PRECONDITION", str(cm.exception))
        # Without a handler the call fails at once.
        results = c.run(s.id, [agent("toolu_pag2")])
        self.assertTrue(results[0]["is_error"])
        self.assertIn("completes no delegated calls", text_of(results[0]))

    def test_question_and_plan_async(self):
        async def main():
            async with toold_client.connect_async(self.toold.addr) as c:
                s = await c.create_session(mode="plan")
                ask = {"type": "tool_use", "id": "toolu_pq", "name": "AskUserQuestion", "input": {"questions": [
                    {"question": "Which color?", "header": "Color", "multiSelect": False,
                     "options": [{"label": "Red", "description": "warm"}, {"label": "Blue", "description": "cool"}]}]}}

                async def on_delegated(d):
                    if d.tool_name == "AskUserQuestion":
                        return Completion(answers={d.input["questions"][0]["question"]: "Blue"})
                    return Completion(approved=True, mode="acceptEdits")

                results = await c.run(s.id, [ask], Handlers(on_delegated=on_delegated))
                self.assertTrue(text_of(results[0]).startswith('The user answered: "Which color?"="Blue". '))
                plan = {"type": "tool_use", "id": "toolu_pp", "name": "ExitPlanMode", "input": {}}
                results = await c.run(s.id, [plan], Handlers(on_delegated=on_delegated))
                self.assertEqual(text_of(results[0]), "User has approved exiting plan mode. You can now proceed.")
                self.assertEqual((await c.get_session(s.id)).mode, 2)  # PERMISSION_MODE_ACCEPT_EDITS

        asyncio.run(main())
