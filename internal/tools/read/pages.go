package read

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/toold/toold/internal/tool"
)

// pageSet is a selection of PDF pages: ascending, distinct, 1-based.
type pageSet []int

// maxPageNumber bounds the numbers accepted in a selection; no real PDF
// comes near it, and it keeps a range like "1-999999999" from being
// expanded before the document's page count can refuse it.
const maxPageNumber = 1 << 20

// parsePages reads a selection such as "3", "1-5" or "1-3,8,10-12".
// Pages past the end of the document are refused later, once its page
// count is known.
func parsePages(s string) (pageSet, error) {
	bad := func(why string) error {
		return tool.InvalidInputf(`pages must be a page number or a range of pages such as "1-5" (several separated by commas); %q %s.`, s, why)
	}
	if strings.TrimSpace(s) == "" {
		return nil, bad("is empty")
	}
	seen := map[int]bool{}
	for part := range strings.SplitSeq(s, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		from, err := pageNumber(lo)
		if err != nil {
			return nil, bad(err.Error())
		}
		to := from
		if isRange {
			if to, err = pageNumber(hi); err != nil {
				return nil, bad(err.Error())
			}
			if to < from {
				return nil, bad(fmt.Sprintf("has a range that ends before it starts (%d-%d)", from, to))
			}
		}
		for p := from; p <= to; p++ {
			seen[p] = true
			if len(seen) > pdfMaxPagesPerCall {
				return nil, tool.InvalidInputf("pages %q selects more than %d pages; one Read returns at most %d pages of a PDF. Read the rest in further calls.", s, pdfMaxPagesPerCall, pdfMaxPagesPerCall)
			}
		}
	}
	sel := make(pageSet, 0, len(seen))
	for p := range seen {
		sel = append(sel, p)
	}
	slices.Sort(sel)
	return sel, nil
}

func pageNumber(s string) (int, error) {
	s = strings.TrimSpace(s)
	n, err := strconv.Atoi(s)
	switch {
	case s == "":
		return 0, fmt.Errorf("has a missing page number")
	case err != nil || n < 1 || n > maxPageNumber:
		return 0, fmt.Errorf("has %q, which is not a page number (pages count from 1)", s)
	}
	return n, nil
}

// String writes the selection back compactly: "1-3,8".
func (ps pageSet) String() string {
	var b strings.Builder
	for i := 0; i < len(ps); {
		j := i
		for j+1 < len(ps) && ps[j+1] == ps[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(ps[i]))
		if j > i {
			b.WriteString("-" + strconv.Itoa(ps[j]))
		}
		i = j + 1
	}
	return b.String()
}
