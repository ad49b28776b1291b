package askuserquestion

// inputSchema is Claude Code's (2.1.332, as recorded in the tool definitions
// it sends the model; test/conformance/tooldefs_delegate.json), so that a
// model's calls validate as they do there.
const inputSchema = `{
  "type": "object",
  "properties": {
    "questions": {
      "description": "Questions to ask the user (1-4 questions)",
      "minItems": 1,
      "maxItems": 4,
      "type": "array",
      "items": {
        "type": "object",
        "properties": {
          "question": {
            "description": "The complete question to ask the user. Should be clear, specific, and end with a question mark. Example: \"Which library should we use for date formatting?\" If multiSelect is true, phrase it accordingly, e.g. \"Which features do you want to enable?\"",
            "type": "string"
          },
          "header": {
            "description": "Very short label displayed as a chip/tag (max 12 chars). Examples: \"Auth method\", \"Library\", \"Approach\".",
            "type": "string"
          },
          "options": {
            "description": "The available choices for this question. Must have 2-4 options. Each option should be a distinct, mutually exclusive choice (unless multiSelect is enabled). There should be no 'Other' option, that will be provided automatically.",
            "minItems": 2,
            "maxItems": 4,
            "type": "array",
            "items": {
              "type": "object",
              "properties": {
                "label": {
                  "description": "The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.",
                  "type": "string"
                },
                "description": {
                  "description": "Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.",
                  "type": "string"
                },
                "preview": {
                  "description": "Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.",
                  "type": "string"
                }
              },
              "required": [
                "label",
                "description"
              ],
              "additionalProperties": false
            }
          },
          "multiSelect": {
            "description": "Set to true to allow the user to select multiple options instead of just one. Use when choices are not mutually exclusive.",
            "default": false,
            "type": "boolean"
          }
        },
        "required": [
          "question",
          "header",
          "options",
          "multiSelect"
        ],
        "additionalProperties": false
      }
    },
    "answers": {
      "description": "User answers collected by the permission component",
      "type": "object",
      "propertyNames": {
        "type": "string"
      },
      "additionalProperties": {
        "type": "string"
      }
    },
    "annotations": {
      "description": "Optional per-question annotations from the user (e.g., notes on preview selections). Keyed by question text.",
      "type": "object",
      "propertyNames": {
        "type": "string"
      },
      "additionalProperties": {
        "type": "object",
        "properties": {
          "preview": {
            "description": "The preview content of the selected option, if the question used previews.",
            "type": "string"
          },
          "notes": {
            "description": "Free-text notes the user added to their selection.",
            "type": "string"
          }
        },
        "additionalProperties": false
      }
    },
    "metadata": {
      "description": "Optional metadata for tracking and analytics purposes. Not displayed to user.",
      "type": "object",
      "properties": {
        "source": {
          "description": "Optional identifier for the source of this question (e.g., \"remember\" for /remember command). Used for analytics tracking.",
          "type": "string"
        }
      },
      "additionalProperties": false
    }
  },
  "required": [
    "questions"
  ],
  "additionalProperties": false
}`
