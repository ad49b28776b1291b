package policy

import "strings"

// domainPattern is a compiled WebFetch(domain:...) pattern.
type domainPattern struct {
	// subdomains: the pattern was "*.rest": one or more labels, then rest.
	subdomains bool
	// labels of the (rest of the) pattern, lower case, each split on '*'.
	labels [][]string
}

// isDomainSpec reports whether a WebFetch specifier is "domain:...".
func isDomainSpec(spec string) bool {
	k, _, ok := splitParam(spec)
	return ok && k == "domain"
}

func domainValue(spec string) string {
	_, v, _ := splitParam(spec)
	return v
}

// compileDomain compiles the host pattern of WebFetch(domain:host)
// (https://code.claude.com/docs/en/permissions "WebFetch"): compared case-
// insensitively with any trailing '.' stripped; "*.example.com" matches
// subdomains at any depth but not example.com; "*" alone is the bare rule
// (nil pattern); any other '*' matches within one dot-free label.
//
// Only letters, digits, '-', '_', '.' and '*' are accepted: a control
// character, backslash, '@', '%', '/', ':' or space cannot be part of a
// hostname, and a pattern holding one is an attempt at, or a victim of, a
// parser differential (security.md §1 #15, §9). Non-ASCII names must be
// written in their punycode (xn--) form, the form URL parsing yields.
func compileDomain(v string) (*domainPattern, string) {
	if v == "" {
		return nil, "empty domain: write WebFetch for every domain, or domain:example.com"
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == '*') {
			return nil, "domain pattern may contain only letters, digits, '-', '_', '.' and '*' (write internationalised names in punycode)"
		}
	}
	v = strings.ToLower(strings.TrimSuffix(v, "."))
	if v == "*" {
		return nil, ""
	}
	d := &domainPattern{}
	if strings.HasPrefix(v, "*.") {
		d.subdomains, v = true, v[2:]
	}
	if v == "" {
		return nil, "domain pattern has no labels after \"*.\""
	}
	for _, l := range strings.Split(v, ".") {
		if l == "" {
			return nil, "domain pattern has an empty label"
		}
		if strings.Contains(l, "**") {
			return nil, "\"**\" is not a domain wildcard: write *.example.com for every subdomain"
		}
		d.labels = append(d.labels, strings.Split(l, "*"))
	}
	return d, ""
}

// match reports whether host matches. A host the engine could not reduce to
// a plain hostname (empty, an empty label, a character outside the
// hostname set) cannot be placed: deny and ask rules match it, allow rules
// do not (fail closed).
func (d *domainPattern) match(host string, b Behavior) bool {
	host = strings.TrimSuffix(host, ".")
	if !plainHost(host) {
		return b != Allow
	}
	// Walk host labels from the right against pattern labels from the right.
	end := len(host)
	for i := len(d.labels) - 1; i >= 0; i-- {
		if end < 0 {
			return false
		}
		start := strings.LastIndexByte(host[:end], '.') + 1
		if !wildMatchFold(d.labels[i], host[start:end]) {
			return false
		}
		end = start - 1
	}
	if d.subdomains {
		return end > 0 // at least one more label on the left
	}
	return end < 0
}

// plainHost reports whether h is a non-empty hostname of ASCII letters,
// digits, '-', '_' and single dots.
func plainHost(h string) bool {
	if h == "" || h[0] == '.' {
		return false
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_':
		case c == '.':
			if i+1 == len(h) || h[i+1] == '.' {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// wildMatchFold is wildMatch over ASCII case-folded text; the parts are
// already lower case.
func wildMatchFold(parts []string, s string) bool {
	if len(parts) == 1 {
		return strings.EqualFold(parts[0], s)
	}
	first, last := parts[0], parts[len(parts)-1]
	if len(s) < len(first)+len(last) || !strings.EqualFold(s[:len(first)], first) || !strings.EqualFold(s[len(s)-len(last):], last) {
		return false
	}
	s = s[len(first) : len(s)-len(last)]
	for _, p := range parts[1 : len(parts)-1] {
		i := indexFold(s, p)
		if i < 0 {
			return false
		}
		s = s[i+len(p):]
	}
	return true
}

func indexFold(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return i
		}
	}
	return -1
}
