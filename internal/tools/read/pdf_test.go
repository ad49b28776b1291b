package read

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/pdfcpu/pdfcpu/pkg/api"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tool/tooltest"
)

// makePDF writes a valid PDF of n pages. Page i is 200+i points wide and
// says "Page i", so the pages of an extract can be told apart by width.
func makePDF(n int) []byte {
	var b bytes.Buffer
	var offsets []int
	obj := func(body string) {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", len(offsets), body)
	}
	b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	font := 3 + 2*n
	var kids []string
	for i := range n {
		kids = append(kids, fmt.Sprintf("%d 0 R", 3+2*i))
	}
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	obj(fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), n))
	for i := 1; i <= n; i++ {
		obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d 300] /Contents %d 0 R /Resources << /Font << /F1 %d 0 R >> >> >>", 200+i, 4+2*(i-1), font))
		content := fmt.Sprintf("BT /F1 24 Tf 20 150 Td (Page %d) Tj ET", i)
		obj(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content))
	}
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, xref)
	return b.Bytes()
}

// pageWidths lists the widths of a PDF's pages, which makePDF set to
// 200 + the page's number in the original.
func pageWidths(t *testing.T, data []byte) []int {
	t.Helper()
	dims, err := api.PageDims(bytes.NewReader(data), pdfConfig())
	if err != nil {
		t.Fatalf("the returned PDF does not parse: %v", err)
	}
	var w []int
	for _, d := range dims {
		w = append(w, int(d.Width))
	}
	return w
}

func readPDF(t *testing.T, opts Options, name string, data []byte, in map[string]any) (*tool.Result, string, error) {
	t.Helper()
	env, st, _ := tooltest.Env(t)
	p := put(t, env.Cwd, name, string(data))
	args := map[string]any{"file_path": p}
	for k, v := range in {
		args[k] = v
	}
	res, err := tooltest.Run(t, New(opts), env, args)
	if err == nil {
		assertStamp(t, st, p)
	} else if len(st.Stamps) != 0 {
		t.Fatal("a failed read was recorded")
	}
	return res, p, err
}

func document(t *testing.T, res *tool.Result) []byte {
	t.Helper()
	if len(res.Content) != 2 || res.Content[0].Type != tool.BlockText || res.Content[1].Type != tool.BlockDocument {
		t.Fatalf("content = %+v, want a text block and a document block", res.Content)
	}
	if mt := res.Content[1].MediaType; mt != "application/pdf" {
		t.Fatalf("document media type %q", mt)
	}
	return res.Content[1].Data
}

func TestReadPDF(t *testing.T) {
	three, twelve := makePDF(3), makePDF(12)
	tests := []struct {
		name   string
		file   string
		data   []byte
		pages  string
		text   string // the text block, with %s for the path
		widths []int
		same   bool // the document is the file itself
	}{
		{name: "small PDF whole", file: "a.pdf", data: three, text: "PDF file read: %s (1.1KB)", widths: []int{201, 202, 203}, same: true},
		{name: "one page", file: "a.pdf", data: makePDF(1), text: "PDF file read: %s (587 bytes)", widths: []int{201}, same: true},
		{name: "pages of a small PDF", file: "a.pdf", data: three, pages: "2", text: "PDF pages extracted: 1 page(s) from %s (1.1KB)", widths: []int{202}},
		{name: "every page asked for", file: "a.pdf", data: three, pages: "1-3", text: "PDF pages extracted: 3 page(s) from %s (1.1KB)", widths: []int{201, 202, 203}, same: true},
		{name: "ranges of a large PDF", file: "a.pdf", data: twelve, pages: "7, 2-4", text: "PDF pages extracted: 4 page(s) from %s (3.4KB)", widths: []int{202, 203, 204, 207}},
		{name: "the last pages", file: "a.pdf", data: twelve, pages: "11-12", text: "PDF pages extracted: 2 page(s) from %s (3.4KB)", widths: []int{211, 212}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var in map[string]any
			if tc.pages != "" {
				in = map[string]any{"pages": tc.pages}
			}
			res, p, err := readPDF(t, Options{}, tc.file, tc.data, in)
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			doc := document(t, res)
			if want := fmt.Sprintf(tc.text, p); res.Content[0].Text != want {
				t.Fatalf("text = %q, want %q", res.Content[0].Text, want)
			}
			if got := fmt.Sprint(pageWidths(t, doc)); got != fmt.Sprint(tc.widths) {
				t.Fatalf("page widths %s, want %v", got, tc.widths)
			}
			if tc.same != bytes.Equal(doc, tc.data) {
				t.Fatalf("document is the file itself: %v, want %v", !tc.same, tc.same)
			}
		})
	}
}

func TestReadPDFRefusals(t *testing.T) {
	twelve := makePDF(12)
	tests := []struct {
		name  string
		file  string
		data  []byte
		pages string
		opts  Options
		kind  tool.ErrorKind
		want  string // with %s for the path
	}{
		{name: "large PDF without pages", file: "a.pdf", data: twelve, kind: tool.KindFailed,
			want: `This PDF has 12 pages, which is too many to read at once. Use the pages parameter to read specific page ranges (e.g., pages: "1-5"). Maximum 20 pages per request.%.0s`},
		{name: "page past the end", file: "a.pdf", data: twelve, pages: "11-13", kind: tool.KindFailed,
			want: `%s has 12 pages; pages "11-13" asks for page 13.`},
		{name: "named .pdf without the header", file: "fake.pdf", data: []byte("not a pdf\n"), kind: tool.KindFailed,
			want: "File is not a valid PDF (missing %%PDF- header): %s"},
		{name: "not really a PDF", file: "broken.pdf", data: []byte("%PDF-1.4\nthis is not a PDF at all\n"), kind: tool.KindFailed,
			want: "Cannot read %s as a PDF: "},
		{name: "file too large", file: "a.pdf", data: twelve, opts: Options{MaxPDFBytes: 1000}, kind: tool.KindFailed,
			want: "%s is a PDF of 3.4 KiB; PDFs larger than 1000 bytes are not read here."},
		{name: "selection too large to return", file: "a.pdf", data: twelve, pages: "1-2", opts: Options{MaxDocumentBytes: 100}, kind: tool.KindFailed,
			want: "Pages 1-2 of %s come to "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var in map[string]any
			if tc.pages != "" {
				in = map[string]any{"pages": tc.pages}
			}
			_, p, err := readPDF(t, tc.opts, tc.file, tc.data, in)
			var te *tool.Error
			if !errors.As(err, &te) {
				t.Fatalf("Read = %v, want a *tool.Error", err)
			}
			want := fmt.Sprintf(tc.want, p)
			if te.Kind != tc.kind || !strings.HasPrefix(te.Msg, want) {
				t.Fatalf("error = %v %q\nwant    %v %q...", te.Kind, te.Msg, tc.kind, want)
			}
		})
	}
}

func TestReadTextMentioningPDFHeaderIsText(t *testing.T) {
	env, _, _ := tooltest.Env(t)
	p := put(t, env.Cwd, "sniff.go", "%PDF-1.4 is how a PDF starts\n")
	res, err := tooltest.Run(t, New(Options{}), env, map[string]any{"file_path": p})
	if err != nil {
		t.Fatal(err)
	}
	if got := tooltest.Text(res); !strings.HasPrefix(got, "1\t%PDF-1.4") {
		t.Fatalf("text = %q", got)
	}
}

func TestParsePages(t *testing.T) {
	tests := []struct {
		in   string
		want string // the selection written back, or the error
	}{
		{in: "3", want: "3"},
		{in: "1-5", want: "1-5"},
		{in: " 2 - 4 ", want: "2-4"},
		{in: "8,1-3,2", want: "1-3,8"},
		{in: "1-20", want: "1-20"},
		{in: "1-10,30-39", want: "1-10,30-39"},
		{in: "", want: `pages must be a page number or a range of pages such as "1-5" (several separated by commas); "" is empty.`},
		{in: "0", want: `pages must be a page number or a range of pages such as "1-5" (several separated by commas); "0" has "0", which is not a page number (pages count from 1).`},
		{in: "5-3", want: `pages must be a page number or a range of pages such as "1-5" (several separated by commas); "5-3" has a range that ends before it starts (5-3).`},
		{in: "1-", want: `pages must be a page number or a range of pages such as "1-5" (several separated by commas); "1-" has a missing page number.`},
		{in: "1,,2", want: `pages must be a page number or a range of pages such as "1-5" (several separated by commas); "1,,2" has a missing page number.`},
		{in: "one", want: `pages must be a page number or a range of pages such as "1-5" (several separated by commas); "one" has "one", which is not a page number (pages count from 1).`},
		{in: "1-21", want: `pages "1-21" selects more than 20 pages; one Read returns at most 20 pages of a PDF. Read the rest in further calls.`},
		{in: "1-10,20-30", want: `pages "1-10,20-30" selects more than 20 pages; one Read returns at most 20 pages of a PDF. Read the rest in further calls.`},
		{in: "1-999999999", want: `pages must be a page number or a range of pages such as "1-5" (several separated by commas); "1-999999999" has "999999999", which is not a page number (pages count from 1).`},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			raw, _ := json.Marshal(map[string]any{"file_path": "/ws/a.pdf", "pages": tc.in})
			inv, err := New(Options{}).Parse(raw)
			got := ""
			if err != nil {
				var te *tool.Error
				if !errors.As(err, &te) || te.Kind != tool.KindInvalidInput {
					t.Fatalf("Parse = %v, want invalid input", err)
				}
				got = te.Msg
			} else {
				got = inv.(*call).pages.String()
			}
			if got != tc.want {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}
