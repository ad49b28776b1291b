package grep

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// slowLocaleCompare is localeCompare without its shortcuts (the common
// prefix skipped, the ASCII table): rune by rune from the start.
func slowLocaleCompare(a, b string) int {
	for i, j := 0, 0; i < len(a) || j < len(b); {
		if i >= len(a) {
			return -1
		}
		if j >= len(b) {
			return 1
		}
		ra, na := utf8.DecodeRuneInString(a[i:])
		rb, nb := utf8.DecodeRuneInString(b[j:])
		ga, wa := primarySlow(ra)
		gb, wb := primarySlow(rb)
		if ga != gb {
			return ga - gb
		}
		if wa != wb {
			if wa < wb {
				return -1
			}
			return 1
		}
		i, j = i+na, j+nb
	}
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			la, lb := unicode.IsLower(rune(a[i])), unicode.IsLower(rune(b[i]))
			if la != lb {
				if la {
					return -1
				}
				return 1
			}
			break
		}
	}
	return strings.Compare(a, b)
}

func sign(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}

// TestLocaleCompareShortcuts: the fast comparison orders every pair as the
// rune-by-rune one does, on paths that share prefixes and differ in case,
// punctuation, digits and multi-byte runes (split inside a rune too).
func TestLocaleCompareShortcuts(t *testing.T) {
	parts := []string{"a", "A", "b", "B", "z", "_", "-", ".", "/", "0", "9", " ", "é", "É", "ß", "ẞ", "÷", "×", "日", "本", "\xff", "\xc3", "K", "\u212a", "src/", "net/http/", "x_test.go"}
	r := rand.New(rand.NewPCG(1, 2))
	gen := func() string {
		var b strings.Builder
		b.WriteString([]string{"", "src/", "src/net/", "é"}[r.IntN(4)])
		for range r.IntN(6) {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		return b.String()
	}
	fixed := [][2]string{{"÷", "é"}, {"a÷", "aé"}, {"é", "è"}, {"aé", "aè"}, {"a\xc3\xa9", "a\xc3\xa8"}, {"Ab", "ab"}, {"a", "a"}, {"", "a"}, {"a_b", "a-b"}, {"a/b", "a.b"}}
	for range 20000 {
		fixed = append(fixed, [2]string{gen(), gen()})
	}
	for _, p := range fixed {
		if got, want := sign(localeCompare(p[0], p[1])), sign(slowLocaleCompare(p[0], p[1])); got != want {
			t.Fatalf("localeCompare(%q, %q) = %d, rune by rune %d", p[0], p[1], got, want)
		}
	}
}

func BenchmarkLocaleCompareSharedPrefix(b *testing.B) {
	x, y := "src/net/http/internal/testcert/testcert.go", "src/net/http/internal/testcert/Testcert2.go"
	for b.Loop() {
		localeCompare(x, y)
	}
}
