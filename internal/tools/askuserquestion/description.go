package askuserquestion

const description = `Asks the user one to four multiple-choice questions and returns their answers.

Use it only when you are blocked on a decision that is genuinely the user's to make: one you cannot resolve from the request, the code, or sensible defaults.

- Each question has a short header (a chip of at most 12 characters) and two to four options, each with a label and a description; the user can always answer "Other" with their own text.
- Set multiSelect to true when the choices are not mutually exclusive.
- If you recommend an option, put it first and add "(Recommended)" to its label.
- Make each question stand on its own: the user may see only the question dialog.
- In plan mode, use it to clarify requirements before you finish the plan, not to ask whether the plan is ready: ExitPlanMode does that.`
