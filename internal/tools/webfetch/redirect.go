package webfetch

import (
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
)

var errTooManyRedirects = errors.New("too many redirects")

// checkRedirect follows a redirect only to the same host (and port, and
// scheme, bar http to https on the default ports). Permission rules were
// checked against the host the model named; following a redirect to
// another host would fetch a page no rule was asked about, so that
// redirect is returned to the model instead (http.ErrUseLastResponse).
func (t *Tool) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > t.opts.MaxRedirects {
		return errTooManyRedirects
	}
	if !sameTarget(via[len(via)-1].URL, req.URL) {
		return http.ErrUseLastResponse
	}
	return nil
}

func sameTarget(from, to *url.URL) bool {
	if to.User != nil || !strings.EqualFold(strings.TrimSuffix(from.Hostname(), "."), strings.TrimSuffix(to.Hostname(), ".")) {
		return false
	}
	if from.Scheme == to.Scheme {
		return port(from) == port(to)
	}
	return from.Scheme == "http" && to.Scheme == "https" && port(from) == "80" && port(to) == "443"
}

func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if u.Scheme == "https" {
		return "443"
	}
	return "80"
}

// redirectReason says how a redirect target differs from where it came
// from, for the message.
func redirectReason(from, to *url.URL) string {
	switch {
	case to.Scheme != "http" && to.Scheme != "https":
		return "to a URL that is not http or https"
	case !strings.EqualFold(strings.TrimSuffix(from.Hostname(), "."), strings.TrimSuffix(to.Hostname(), ".")):
		return "to a different host"
	case to.User != nil:
		return "to a URL with a user name or password"
	case from.Scheme != to.Scheme:
		return "from " + from.Scheme + " to " + to.Scheme
	}
	return "to a different port (" + net.JoinHostPort(to.Hostname(), port(to)) + ")"
}
