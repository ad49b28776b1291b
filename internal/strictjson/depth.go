package strictjson

import "fmt"

// MaxDepth is the default bound on how deeply arrays and objects may nest.
// Tool inputs and settings files nest a handful of levels; the bound is
// there because every decoder of the document (the duplicate-key scan,
// encoding/json, the schema validator, the journal) spends memory per
// level, and a 15 MB document can nest millions of levels.
const MaxDepth = 512

// DepthError says a document nests deeper than allowed.
type DepthError struct {
	// Max is the bound that was exceeded.
	Max int
	// Offset is the byte offset of the bracket that went past it, -1 when
	// the document was not text (a protobuf Struct).
	Offset int
}

func (e *DepthError) Error() string {
	if e.Offset < 0 {
		return fmt.Sprintf("arrays and objects nest more than %d levels deep", e.Max)
	}
	return fmt.Sprintf("arrays and objects nest more than %d levels deep (at byte %d)", e.Max, e.Offset)
}

// CheckDepth refuses a document whose arrays and objects nest more than
// max levels, before any decoder allocates a frame per level. It reads the
// bytes once, in constant memory, and skips brackets inside strings; it
// does not otherwise check the syntax (the decoders that follow do). It
// takes a string too, so that a request's JSON text is checked uncopied.
func CheckDepth[T string | []byte](data T, max int) error {
	depth := 0
	inString, escaped := false, false
	for i := 0; i < len(data); i++ {
		b := data[i]
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
		case b == '"':
			inString = true
		case b == '[' || b == '{':
			if depth++; depth > max {
				return &DepthError{Max: max, Offset: i}
			}
		case b == ']' || b == '}':
			depth--
		}
	}
	return nil
}
