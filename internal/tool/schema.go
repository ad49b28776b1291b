package tool

import (
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// CompileSchema compiles d's input schema as the engine validates input
// with it (JSON Schema draft 2020-12). doc is the schema as parsed JSON.
func CompileSchema(d Definition) (sch *jsonschema.Schema, doc any, err error) {
	doc, err = jsonschema.UnmarshalJSON(strings.NewReader(string(d.InputSchema)))
	if err != nil {
		return nil, nil, fmt.Errorf("tool %s: schema: %w", d.Name, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	url := "toold:///tools/" + d.Name + ".json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, nil, fmt.Errorf("tool %s: schema: %w", d.Name, err)
	}
	sch, err = c.Compile(url)
	if err != nil {
		return nil, nil, fmt.Errorf("tool %s: schema: %w", d.Name, err)
	}
	return sch, doc, nil
}
