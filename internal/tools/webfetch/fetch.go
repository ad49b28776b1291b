package webfetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"github.com/toold/toold/internal/tool"
)

// page is what one fetch produced, before it is shaped into a result. It
// is what the cache keeps.
type page struct {
	url         string // the URL finally fetched, after same-host redirects
	status      string // "200 OK"
	code        int
	contentType string // the media type, without parameters
	text        string // Markdown (from HTML) or the text as served
	fromHTML    bool
	bodyBytes   int    // bytes of body read
	cut         bool   // the body was longer than MaxBytes
	redirect    string // a redirect not followed: nothing was fetched
	redirectWhy string
}

func (p page) cost() int64 {
	return int64(len(p.url)+len(p.status)+len(p.contentType)+len(p.text)+len(p.redirect)+len(p.redirectWhy)) + 128
}

// upgrade returns the URL to fetch: http on the default port becomes https,
// unless the operator allowed every address the host has (an internal
// service reached on purpose, which often has no certificate).
func (t *Tool) upgrade(ctx context.Context, u *url.URL) *url.URL {
	if u.Scheme != "http" || t.opts.KeepHTTP {
		return u
	}
	if p := u.Port(); p != "" && p != "80" {
		return u
	}
	if t.operatorAllowed(ctx, u.Hostname()) {
		return u
	}
	v := *u
	v.Scheme = "https"
	v.Host = u.Hostname()
	if strings.Contains(v.Host, ":") {
		v.Host = "[" + v.Host + "]"
	}
	return &v
}

func (t *Tool) operatorAllowed(ctx context.Context, host string) bool {
	if len(t.guard.allow) == 0 {
		return false
	}
	if a, err := netip.ParseAddr(host); err == nil {
		return t.guard.allowed(a)
	}
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil || len(addrs) == 0 {
		return false
	}
	for _, a := range addrs {
		if !t.guard.allowed(a) {
			return false
		}
	}
	return true
}

// fetch GETs u and reads its body up to MaxBytes. ctx carries the call's
// deadline.
func (t *Tool) fetch(ctx context.Context, u *url.URL) (page, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return page{}, tool.InvalidInputf("Invalid URL %q: %v.", u, err)
	}
	req.Header.Set("User-Agent", t.opts.UserAgent)
	req.Header.Set("Accept", "text/markdown, text/html;q=0.9, text/plain;q=0.8, */*;q=0.5")
	resp, err := t.client.Do(req)
	if err != nil {
		return page{}, err
	}
	defer resp.Body.Close()
	final := resp.Request.URL
	p := page{url: final.String(), status: resp.Status, code: resp.StatusCode}

	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		loc, err := resp.Location()
		if err != nil {
			return page{}, tool.Failf("%s answered %s without a usable Location to redirect to.", final, resp.Status)
		}
		p.redirect, p.redirectWhy = loc.String(), redirectReason(final, loc)
		return p, nil
	}
	if resp.StatusCode >= 400 {
		return page{}, tool.Failf("Fetching %s failed: the server answered %s.", final, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, t.opts.MaxBytes+1))
	if err != nil {
		return page{}, err
	}
	if int64(len(body)) > t.opts.MaxBytes {
		body, p.cut = body[:t.opts.MaxBytes], true
	}
	p.bodyBytes = len(body)
	if err := t.toText(ctx, &p, resp.Header.Get("Content-Type"), body); err != nil {
		return page{}, err
	}
	return p, nil
}

// fetchError turns a failed request into what the model reads. callCtx is
// the call's own context: its end is a cancellation, not a timeout.
func (t *Tool) fetchError(callCtx, ctx context.Context, u *url.URL, err error) error {
	var te *tool.Error
	var be *blockedError
	var dnsErr *net.DNSError
	switch {
	case errors.As(err, &te):
		return te
	case callCtx.Err() != nil:
		return callCtx.Err()
	case errors.As(err, &be):
		return tool.Errorf(tool.KindPermissionDenied,
			"Refused to fetch %s: %s. WebFetch does not connect to the server's own machine or networks (loopback, private, link-local, shared or cloud metadata addresses) unless the operator allows the address with --webfetch-allow-cidr.",
			u, refusal(u, be))
	case errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil:
		return tool.Errorf(tool.KindTimeout, "Fetching %s did not complete within %s.", u, t.opts.Timeout)
	case errors.Is(err, errTooManyRedirects):
		return tool.Failf("Fetching %s failed: more than %d redirects.", u, t.opts.MaxRedirects)
	case errors.As(err, &dnsErr):
		return tool.Failf("Cannot fetch %s: the host name %s could not be resolved (%s).", u, u.Hostname(), dnsErr.Err)
	}
	return tool.Failf("Cannot fetch %s: %v.", u, unwrapURLError(err))
}

// refusal says which address was refused, and through which name.
func refusal(u *url.URL, be *blockedError) string {
	if _, err := netip.ParseAddr(u.Hostname()); err == nil {
		return fmt.Sprintf("%s is %s", be.addr, be.what)
	}
	return fmt.Sprintf("%s resolves to %s, which is %s", u.Hostname(), be.addr, be.what)
}

// unwrapURLError drops the "Get \"url\":" prefix the model already knows.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// fetchOnce applies the timeout to one fetch and classifies its failure.
func (t *Tool) fetchOnce(callCtx context.Context, u *url.URL) (page, error) {
	ctx, cancel := context.WithTimeout(callCtx, t.opts.Timeout)
	defer cancel()
	p, err := t.fetch(ctx, t.upgrade(ctx, u))
	if err != nil {
		return page{}, t.fetchError(callCtx, ctx, u, err)
	}
	return p, nil
}
