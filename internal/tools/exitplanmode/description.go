package exitplanmode

const description = `Asks the user to approve your plan and leave plan mode.

Use it in plan mode once you have written your plan to the plan file and are ready for the user's review; it takes no plan as input, the user reads the plan file. Only use it for tasks whose plan is the implementation steps of code to write, not for research.

- Resolve open questions with AskUserQuestion first; do not ask with it whether the plan is fine: this tool asks that.
- When the user approves, the session leaves plan mode and you may proceed; when they refuse, you stay in plan mode and their answer says why.`
