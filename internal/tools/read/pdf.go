package read

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"sync"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tools/filestate"
)

// pdf returns the pages asked for as a document block: the API shows the
// model each page's text and its image, which no text extraction matches
// for tables, figures and scans. The selected pages are cut out into a
// PDF of their own; a whole small PDF is returned as it is.
func (c *call) pdf(t filestate.Target, fi fs.FileInfo, br *bufio.Reader) (*tool.Result, error) {
	path := t.Given.Abs
	if fi.Size() > c.opts.MaxPDFBytes {
		return nil, tool.Failf("%s is a PDF of %s; PDFs larger than %s are not read here. Extract the pages you need through Bash (for example qpdf --pages or pdftotext -f N -l M) and read that.",
			path, tool.HumanBytes(fi.Size()), tool.HumanBytes(c.opts.MaxPDFBytes))
	}
	data, err := io.ReadAll(io.LimitReader(br, c.opts.MaxPDFBytes+1))
	if err != nil {
		return nil, filestate.AccessError(path, err)
	}
	if !bytes.HasPrefix(data, []byte("%PDF-")) {
		return nil, tool.Failf("File is not a valid PDF (missing %%PDF- header): %s", path)
	}
	doc, err := parsePDF(data)
	if err != nil {
		return nil, tool.Failf("Cannot read %s as a PDF: %v. Through Bash, pdftotext or pdftoppm may still get its content.", path, err)
	}
	n := doc.PageCount
	sel := c.pages
	if sel == nil {
		if n > pdfWholeMaxPages {
			return nil, tool.Failf(`This PDF has %d pages, which is too many to read at once. Use the pages parameter to read specific page ranges (e.g., pages: "1-5"). Maximum %d pages per request.`,
				n, pdfMaxPagesPerCall)
		}
		sel = allPages(n)
	}
	if last := sel[len(sel)-1]; last > n {
		return nil, tool.Failf("%s has %d pages; pages %q asks for page %d.", path, n, sel.String(), last)
	}
	out := data
	if len(sel) < n {
		if out, err = extractPages(doc, sel); err != nil {
			return nil, tool.Failf("Cannot extract pages %s of %s: %v. Through Bash, qpdf or pdftotext may still get them.", sel, path, err)
		}
	}
	if int64(len(out)) > c.opts.MaxDocumentBytes {
		return nil, tool.Failf("Pages %s of %s come to %s, more than the %s a PDF returned to the model may hold. Read fewer pages at a time with the pages parameter.",
			sel, path, tool.HumanBytes(int64(len(out))), tool.HumanBytes(c.opts.MaxDocumentBytes))
	}
	// Claude Code's wording; it returns a selection of pages as page
	// images, toold as a PDF of those pages.
	text := fmt.Sprintf("PDF file read: %s (%s)", path, formatSize(fi.Size()))
	if c.pages != nil {
		text = fmt.Sprintf("PDF pages extracted: %d page(s) from %s (%s)", len(sel), path, formatSize(fi.Size()))
	}
	res := &tool.Result{Content: []tool.Block{
		{Type: tool.BlockText, Text: text},
		{Type: tool.BlockDocument, MediaType: "application/pdf", Data: out},
	}}
	return res.WithMeta("pdf_pages", n), nil
}

func allPages(n int) pageSet {
	sel := make(pageSet, n)
	for i := range sel {
		sel[i] = i + 1
	}
	return sel
}

var disablePDFConfigDir sync.Once

// pdfConfig is pdfcpu's configuration for one call. pdfcpu would otherwise
// create and read a configuration directory in the user's home: toold
// keeps no such state, so that directory is switched off once, for the
// whole process.
func pdfConfig() *model.Configuration {
	disablePDFConfigDir.Do(api.DisableConfigDir)
	conf := model.NewDefaultConfiguration()
	conf.Offline = true
	conf.Cmd = model.TRIM
	return conf
}

// parsePDF reads and validates a PDF. pdfcpu reports most faults as
// errors, but input this varied may still reach a panic in it; one bad
// file must not take the service down.
func parsePDF(data []byte) (doc *model.Context, err error) {
	defer recoverPDF(&err)
	return api.ReadAndValidate(bytes.NewReader(data), pdfConfig())
}

// extractPages writes a PDF of the selected pages of doc.
func extractPages(doc *model.Context, sel pageSet) (out []byte, err error) {
	defer recoverPDF(&err)
	if err := api.OptimizeContext(doc); err != nil {
		return nil, err
	}
	dest, err := pdfcpu.ExtractPages(doc, sel, false)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := api.WriteContext(dest, &b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func recoverPDF(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("the PDF parser failed on this file (%v)", r)
	}
}
