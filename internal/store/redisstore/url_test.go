package redisstore

import (
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func TestClientFromURL(t *testing.T) {
	for _, tc := range []struct {
		url  string
		want string
	}{
		{"redis://127.0.0.1:6379/0", "*redis.Client"},
		{"rediss://user:pw@cache:6380/2?max_retries=0", "*redis.Client"},
		{"redis://s1:26379?master_name=mymaster&addr=s2:26379", "*redis.Client"},
		{"redis://n1:7000?cluster=true&addr=n2:7000&addr=n3:7000", "*redis.ClusterClient"},
	} {
		c, err := clientFromURL(tc.url, 300*time.Millisecond)
		if err != nil {
			t.Fatalf("%s: %v", tc.url, err)
		}
		defer c.Close()
		switch cl := c.(type) {
		case *redis.Client:
			if tc.want != "*redis.Client" {
				t.Fatalf("%s: got a single-server client", tc.url)
			}
			o := cl.Options()
			if o.ReadTimeout != 300*time.Millisecond || !o.ContextTimeoutEnabled {
				t.Fatalf("%s: read timeout %v, context timeouts %v", tc.url, o.ReadTimeout, o.ContextTimeoutEnabled)
			}
			if strings.Contains(tc.url, "master_name") && o.Addr != "FailoverClient" {
				t.Fatalf("%s: want a Sentinel-backed client, got addr %q", tc.url, o.Addr)
			}
		case *redis.ClusterClient:
			o := cl.Options()
			if tc.want != "*redis.ClusterClient" || len(o.Addrs) != 3 || o.ReadTimeout != 300*time.Millisecond {
				t.Fatalf("%s: cluster options %+v", tc.url, o.Addrs)
			}
		default:
			t.Fatalf("%s: client %T", tc.url, c)
		}
	}
	for _, bad := range []string{"http://x", "redis://h:1?cluster=true&bogus=1", "://", "redis://h:1?master_name=m&bogus=1"} {
		if _, err := clientFromURL(bad, time.Second); err == nil || strings.Contains(err.Error(), "bogus") {
			t.Errorf("%q: err = %v, want a plain invalid-URL error", bad, err)
		}
	}
}
