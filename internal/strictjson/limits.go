package strictjson

import "fmt"

// Limits bound the shape of a document before it is decoded. Every
// decoder of a tool input (the duplicate-key check, the schema validator,
// the journal's fingerprint, the tool's own parse) spends memory per level
// of nesting and per value: a 15 MB document can nest millions of levels,
// or hold five million empty arrays at some 50 bytes of memory each.
type Limits struct {
	// MaxDepth bounds how deeply arrays and objects nest (default 512).
	MaxDepth int
	// MaxValues bounds the values of the document, containers and object
	// members included (default 100,000).
	MaxValues int
}

// Defaults of Limits. Tool inputs nest a handful of levels and hold tens
// of values; a file's content is one string, however long.
const (
	MaxDepth  = 512
	MaxValues = 100_000
)

// WithDefaults fills in the zero fields.
func (l Limits) WithDefaults() Limits {
	if l.MaxDepth <= 0 {
		l.MaxDepth = MaxDepth
	}
	if l.MaxValues <= 0 {
		l.MaxValues = MaxValues
	}
	return l
}

// LimitError says a document is over one of its Limits.
type LimitError struct {
	// Values is set when the count of values is over, else the depth is.
	Values bool
	// Max is the bound that was exceeded.
	Max int
	// Offset is the byte offset where the scan went past it, -1 when the
	// document was not text (a protobuf Struct).
	Offset int
}

func (e *LimitError) Error() string {
	what := fmt.Sprintf("arrays and objects nest more than %d levels deep", e.Max)
	if e.Values {
		what = fmt.Sprintf("the input holds more than %d values", e.Max)
	}
	if e.Offset < 0 {
		return what
	}
	return fmt.Sprintf("%s (at byte %d)", what, e.Offset)
}

// CheckLimits refuses a document over l (zero fields: the defaults)
// before any decoder allocates for it. It reads the bytes once, in
// constant memory, and skips brackets and commas inside strings; it does
// not otherwise check the syntax (the decoders that follow do). It takes a
// string too, so that a request's JSON text is checked uncopied. Values
// are counted from above: one, plus one per opening bracket and per comma.
func CheckLimits[T string | []byte](data T, l Limits) error {
	l = l.WithDefaults()
	depth, values := 0, 1
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
			continue
		case b == '"':
			inString = true
			continue
		case b == '[' || b == '{':
			if depth++; depth > l.MaxDepth {
				return &LimitError{Max: l.MaxDepth, Offset: i}
			}
			values++
		case b == ']' || b == '}':
			depth--
			continue
		case b == ',':
			values++
		default:
			continue
		}
		if values > l.MaxValues {
			return &LimitError{Values: true, Max: l.MaxValues, Offset: i}
		}
	}
	return nil
}
