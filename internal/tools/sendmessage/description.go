package sendmessage

const description = `Sends a message to another agent: a subagent you started (by the agentId its Agent result gave you, or as ListAgents lists it), or, from a subagent, "main" for the conversation that started you.

{"to": "<agentId>", "summary": "assign task 1", "message": "start on task #1"}

- Your plain text output is not visible to other agents: to tell them something, call this tool.
- A message to a subagent that has finished continues it from where it stopped.
- Make the first line of message a clear, self-contained sentence: it is what the recipient sees first. summary is a 5-10 word label for your own transcript.`
