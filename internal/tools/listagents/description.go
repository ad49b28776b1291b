package listagents

const description = `Lists the agents you can SendMessage to: the subagents this session started with the Agent tool, and, in a subagent, "main" (the conversation that started it).

Each row leads with the agent's agentId, which is its address: send with SendMessage({to: "<agentId>", message: "..."}), copying the id exactly.`
