package read

import (
	"bufio"
	"io"
	"strings"
	"testing"
)

type countingReader struct {
	r     io.Reader
	calls int
}

func (c *countingReader) Read(p []byte) (int, error) {
	c.calls++
	return c.r.Read(p)
}

// TestOnceEOF: a small file read line by line through bufio reaches the
// file twice (its bytes, then the end), not once more per line read past
// the end, and the lines are all there.
func TestOnceEOF(t *testing.T) {
	text := strings.Repeat("line of a small file\n", 40)
	for _, wrap := range []bool{false, true} {
		c := &countingReader{r: strings.NewReader(text)}
		var r io.Reader = c
		if wrap {
			r = &onceEOF{r: c}
		}
		br := bufio.NewReaderSize(r, bufferSize(int64(len(text))))
		br.Peek(len(text) + 1)
		var got strings.Builder
		for {
			chunk, err := br.ReadSlice('\n')
			got.Write(chunk)
			if err != nil {
				break
			}
		}
		br.Peek(1)
		if got.String() != text {
			t.Fatalf("wrap %v: read %d bytes of %d", wrap, got.Len(), len(text))
		}
		if wrap && c.calls != 2 {
			t.Errorf("through onceEOF: %d reads, want 2", c.calls)
		}
		if !wrap && c.calls <= 2 {
			t.Errorf("bufio alone: %d reads; the test no longer shows what onceEOF saves", c.calls)
		}
	}
}
