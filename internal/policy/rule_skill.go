package policy

import "strings"

// skillTool is the tool whose rules name skills.
const skillTool = "Skill"

// skillPattern is a compiled Skill(name) rule, matched as Claude Code's
// Skill tool matches its rules: the skill's name with a leading "/"
// dropped on both sides, equal to the rule's, or starting with the
// prefix of a rule written "prefix:*". A rule "name *" (the form the
// documentation shows for skills with arguments) covers the skill name
// whatever the arguments.
type skillPattern struct {
	name   string
	prefix bool
}

// compileSkill parses the specifier of a Skill rule.
func compileSkill(spec string) (*skillPattern, string) {
	s := strings.TrimPrefix(spec, "/")
	switch {
	case strings.HasSuffix(s, ":*"):
		return &skillPattern{name: strings.TrimSuffix(s, ":*"), prefix: true}, ""
	case strings.HasSuffix(s, " *"):
		s = strings.TrimSuffix(s, " *")
	}
	if s == "" || strings.ContainsAny(s, "* \t") {
		return nil, "a Skill rule names one skill, Skill(name), or skills by prefix, Skill(prefix:*)"
	}
	return &skillPattern{name: s}, ""
}

// match reports whether the call's skill is the rule's.
func (p *skillPattern) match(input map[string]any) bool {
	name, ok := input["skill"].(string)
	if !ok {
		return false
	}
	name = strings.TrimPrefix(strings.TrimSpace(name), "/")
	if p.prefix {
		return strings.HasPrefix(name, p.name)
	}
	return name == p.name
}

// skillDenied is Claude Code's text for a skill a rule denies.
const skillDenied = "Skill execution blocked by permission rules"

// skill decides a Skill call as Claude Code's Skill tool does: deny rules
// for the skill, then allow rules, then the skill itself (one that only
// describes itself runs; one whose frontmatter grants or runs something
// asks). Ask rules naming a skill are not consulted, as Claude Code's
// tool does not consult them; an ask rule for the whole tool is.
func (in *input) skill() Decision {
	q := in.query()
	name, _ := in.req.Args["skill"].(string)
	name = strings.TrimPrefix(strings.TrimSpace(name), "/")
	if r := in.rules.Match(Deny, q); r != nil {
		d := byRule(Deny, r, "skill "+name)
		d.Message = skillDenied
		return d
	}
	if r := in.rules.Match(Ask, q); r != nil && r.kind == kindTool {
		return in.ask(byRule(Ask, r, "skill "+name))
	}
	if in.req.Mode == "bypassPermissions" {
		return allow("bypassPermissions mode", "", "mode")
	}
	if r := in.rules.Match(Allow, q); r != nil {
		return byRule(Allow, r, "skill "+name)
	}
	if in.skills != nil && !in.skills.Asks(in.req.Workspace, name) {
		return allow("skill "+name+" only describes itself", "", "readOnly")
	}
	d := in.ask(Decision{Reason: "skill " + name + " grants tools or runs hooks", Suggestions: []string{"Skill(" + name + ")"}})
	// Claude Code's question, which its refusals repeat (after the
	// dontAsk text in that mode).
	q2 := "Execute skill: " + name + ". The user can add the allow rule Skill(" + name + ") to .claude/settings.local.json to let it run without asking."
	if d.Behavior == Ask {
		d.Message = q2
	} else {
		d.Message += " " + q2
	}
	return d
}
