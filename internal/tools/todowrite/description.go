package todowrite

const description = `Creates and updates the task list for the current session. Use it to plan and track work of several steps, so that you and the user can see progress.

Each call replaces the whole list: send every item, with its current status. An item has:
- content: what is to be done, in the imperative ("Run the tests").
- activeForm: the same in the present continuous, shown while it is being done ("Running the tests").
- status: pending, in_progress or completed.

When to use it:
- Tasks of three or more distinct steps, or work the user gave as a list.
- When new requirements appear: add them as items.
- Before starting an item, mark it in_progress; keep exactly one item in progress at a time.
- As soon as an item is finished, mark it completed; do not batch completions. Only mark an item completed when it is fully done (tests pass, nothing left unresolved); otherwise keep it in progress and add an item for what blocks it.

When not to use it: a single simple task, or a purely conversational request.

The result confirms the update and shows the list. The list is kept for the session; when every item is completed it is cleared.`

const inputSchema = `{
  "type": "object",
  "properties": {
    "todos": {
      "type": "array",
      "description": "The updated todo list",
      "items": {
        "type": "object",
        "properties": {
          "content": {"type": "string", "minLength": 1},
          "status": {"type": "string", "enum": ["pending", "in_progress", "completed"]},
          "activeForm": {"type": "string", "minLength": 1}
        },
        "required": ["content", "status", "activeForm"],
        "additionalProperties": false
      }
    }
  },
  "required": ["todos"],
  "additionalProperties": false
}`
