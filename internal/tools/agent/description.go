package agent

const description = `Launches a new agent to handle a complex, multi-step task on its own. Each agent type has its own capabilities and tools.

Specify subagent_type to pick an agent ("general-purpose" when omitted; "fork" forks yourself with your whole conversation). The agent knows only what you put in the prompt, and you see only the report it sends back, so give it everything it needs and say what the report must contain.

- Use it for independent work that can run in parallel, a side quest that should not block you, or an answer that needs reading across many files. Do a handful of tool calls yourself instead.
- Agents run in the background by default and you are told when one finishes; set run_in_background to false only when your very next step needs its result.
- The agent works in the same workspace with the same permission rules, in a session of its own; continue it with SendMessage, using the agentId its result gives.
- Launch several agents at once by making several Agent calls in one message.`
