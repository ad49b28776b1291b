package procgroup

import "testing"

func TestCappedKeepsTheLimitAndOverflowsOnce(t *testing.T) {
	calls := 0
	c := &Capped{Limit: 5, Overflow: func() { calls++ }}
	for _, w := range []string{"abc", "defg", "hij"} {
		if n, err := c.Write([]byte(w)); n != len(w) || err != nil {
			t.Fatalf("Write(%q) = %d, %v: a write past the limit must be accepted", w, n, err)
		}
	}
	if c.String() != "abcde" || string(c.Bytes()) != "abcde" {
		t.Errorf("kept %q, want the first 5 bytes", c.String())
	}
	if calls != 1 {
		t.Errorf("Overflow called %d times, want once", calls)
	}
	b := c.Bytes()
	b[0] = 'X'
	if c.String() != "abcde" {
		t.Error("Bytes shares the buffer")
	}
}
