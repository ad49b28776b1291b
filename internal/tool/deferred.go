package tool

// Defer returns t with its definition marked deferred: listed by name
// only, its full definition found with ToolSearch. The operator chooses
// which built-in tools are deferred; the tool itself is unchanged.
func Defer(t Tool) Tool { return deferred{t} }

type deferred struct{ Tool }

func (d deferred) Definition() Definition {
	def := d.Tool.Definition()
	def.Deferred = true
	return def
}
