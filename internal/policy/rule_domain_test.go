package policy

import "testing"

func TestDomainMatch(t *testing.T) {
	tests := []struct {
		rule string
		b    Behavior
		host string
		want bool
	}{
		// https://code.claude.com/docs/en/permissions "WebFetch" (the hostname)
		{rule: "WebFetch(domain:example.com)", b: Allow, host: "example.com", want: true},
		// https://code.claude.com/docs/en/permissions "WebFetch" (case-insensitive)
		{rule: "WebFetch(domain:Example.COM)", b: Allow, host: "EXAMPLE.com", want: true},
		// https://code.claude.com/docs/en/permissions "WebFetch" (trailing dot stripped on both sides)
		{rule: "WebFetch(domain:example.com.)", b: Allow, host: "example.com.", want: true},
		// https://code.claude.com/docs/en/permissions "WebFetch"
		{rule: "WebFetch(domain:example.com)", b: Allow, host: "example.com.", want: true},
		// security.md §9 (not a suffix of another name)
		{rule: "WebFetch(domain:example.com)", b: Allow, host: "example.com.attacker.example", want: false},
		// security.md §9
		{rule: "WebFetch(domain:example.com)", b: Allow, host: "attacker-example.com", want: false},
		// https://code.claude.com/docs/en/permissions "WebFetch" (exact domain does not cover subdomains)
		{rule: "WebFetch(domain:example.com)", b: Allow, host: "www.example.com", want: false},
		// https://code.claude.com/docs/en/permissions "WebFetch" (*.x: any depth)
		{rule: "WebFetch(domain:*.example.com)", b: Allow, host: "a.b.example.com", want: true},
		// https://code.claude.com/docs/en/permissions "WebFetch" (*.x: not x itself)
		{rule: "WebFetch(domain:*.example.com)", b: Allow, host: "example.com", want: false},
		// https://code.claude.com/docs/en/permissions "WebFetch"
		{rule: "WebFetch(domain:*.example.com)", b: Allow, host: "badexample.com", want: false},
		// https://code.claude.com/docs/en/permissions "WebFetch" (other '*': one dot-free label)
		{rule: "WebFetch(domain:example.*)", b: Allow, host: "example.org", want: true},
		// https://code.claude.com/docs/en/permissions "WebFetch"
		{rule: "WebFetch(domain:example.*)", b: Allow, host: "example.evil.com", want: false},
		// https://code.claude.com/docs/en/permissions "WebFetch"
		{rule: "WebFetch(domain:api-*.example.com)", b: Allow, host: "api-eu.example.com", want: true},
		// https://code.claude.com/docs/en/permissions "WebFetch"
		{rule: "WebFetch(domain:api-*.example.com)", b: Allow, host: "api-eu.x.example.com", want: false},
		// https://code.claude.com/docs/en/permissions "WebFetch" (domain:* ≡ WebFetch)
		{rule: "WebFetch(domain:*)", b: Deny, host: "anything.example", want: true},
		// security.md §1 #15 (a host that is no plain hostname: deny matches, allow does not)
		{rule: "WebFetch(domain:google.com)", b: Deny, host: "attacker.example\x00.google.com", want: true},
		// security.md §1 #15
		{rule: "WebFetch(domain:*.google.com)", b: Allow, host: "attacker.example\x00.google.com", want: false},
		// security.md §9
		{rule: "WebFetch(domain:example.com)", b: Allow, host: "", want: false},
		// security.md §9
		{rule: "WebFetch(domain:example.com)", b: Ask, host: "", want: true},
		// security.md §9 (non-ASCII must arrive as punycode)
		{rule: "WebFetch(domain:xn--bcher-kva.example)", b: Allow, host: "bücher.example", want: false},
	}
	for _, tc := range tests {
		t.Run(tc.b.String()+" "+tc.rule+" "+tc.host, func(t *testing.T) {
			r := mustRule(t, tc.rule, tc.b)
			if got := r.matches(&Query{Tool: "WebFetch", Domain: tc.host}); got != tc.want {
				t.Errorf("match = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestDomainRuleOnlyWebFetch: domain rules speak only about WebFetch.
func TestDomainRuleOnlyWebFetch(t *testing.T) {
	// https://code.claude.com/docs/en/permissions "WebFetch"
	r := mustRule(t, "WebFetch(domain:example.com)", Deny)
	if r.matches(&Query{Tool: "WebSearch", Domain: "example.com"}) {
		t.Error("a WebFetch domain rule matched WebSearch")
	}
}
