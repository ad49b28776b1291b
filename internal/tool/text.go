package tool

import (
	"fmt"
	"unicode/utf8"
)

// TrimPartialRune drops an incomplete UTF-8 sequence at the end of b, where
// a size cut may have split a character.
func TrimPartialRune(b []byte) []byte {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			break
		}
	}
	return b
}

// HumanBytes writes a size as the model reads it in messages: "12 bytes",
// "3.4 KiB", "1.2 MiB".
func HumanBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
