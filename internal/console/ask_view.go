package console

import (
	"encoding/json"
)

// askView is an Ask as the page shows it: besides the explanation, what
// the call would do in the terms of its tool (a Bash command with the
// verdict on each of its simple commands; the diff an Edit or Write would
// make), and the whole input.
type askView struct {
	Ask
	Command     string
	Description string
	Path        string
	Diff        []diffLine
	InputJSON   string
}

func viewAsk(a Ask) askView {
	v := askView{Ask: a}
	str := func(m map[string]any, k string) string { s, _ := m[k].(string); return s }
	in := a.Input
	switch a.Tool {
	case "Bash":
		v.Command, v.Description = str(in, "command"), str(in, "description")
	case "Edit":
		v.Path = str(in, "file_path")
		v.Diff = lineDiff(str(in, "old_string"), str(in, "new_string"))
	case "MultiEdit":
		v.Path = str(in, "file_path")
		edits, _ := in["edits"].([]any)
		for _, e := range edits {
			m, _ := e.(map[string]any)
			if len(v.Diff) > 0 {
				v.Diff = append(v.Diff, diffLine{" ", "…"})
			}
			v.Diff = append(v.Diff, lineDiff(str(m, "old_string"), str(m, "new_string"))...)
		}
	case "Write":
		v.Path = str(in, "file_path")
		v.Diff = lineDiff("", str(in, "content"))
	case "NotebookEdit":
		v.Path = str(in, "notebook_path")
		v.Diff = lineDiff("", str(in, "new_source"))
	default:
		v.Path = str(in, "file_path")
		if v.Path == "" {
			v.Path = str(in, "path")
		}
	}
	if b, err := json.MarshalIndent(in, "", "  "); err == nil {
		v.InputJSON = string(b)
	}
	return v
}
