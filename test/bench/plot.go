package main

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// The PNG is a grid of panels, one per figure with two distributions:
// each panel draws both cumulative distributions of latency over a
// logarithmic time axis (from the 0.5th to the 99.5th percentile of
// both), so that the distance between the curves at 0.5 is the p50 ratio.
const (
	panelW, panelH = 460, 280
	cols           = 2
	marginL        = 50
	marginR        = 16
	marginT        = 50
	marginB        = 40
)

var (
	white     = color.RGBA{255, 255, 255, 255}
	black     = color.RGBA{30, 30, 30, 255}
	grey      = color.RGBA{215, 215, 215, 255}
	tooldCol  = color.RGBA{31, 119, 180, 255}
	baseCol   = color.RGBA{230, 120, 20, 255}
	textFace  = basicfont.Face7x13
	lineWidth = 2
)

func writePNG(path, caption string, dists []dist) error {
	rows := (len(dists) + cols - 1) / cols
	const head = 40
	img := image.NewRGBA(image.Rect(0, 0, cols*panelW, rows*panelH+head))
	draw.Draw(img, img.Bounds(), &image.Uniform{white}, image.Point{}, draw.Src)
	for i, l := range wrap(caption, cols*panelW/7-2) {
		text(img, 8, 16+14*i, l, black)
	}
	for i, d := range dists {
		x0, y0 := (i%cols)*panelW, head+(i/cols)*panelH
		panel(img, image.Rect(x0, y0, x0+panelW, y0+panelH), d)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func panel(img *image.RGBA, r image.Rectangle, d dist) {
	plot := image.Rect(r.Min.X+marginL, r.Min.Y+marginT, r.Max.X-marginR, r.Max.Y-marginB)
	text(img, r.Min.X+marginL, r.Min.Y+14, d.title, black)
	text(img, r.Min.X+marginL, r.Min.Y+28, fmt.Sprintf("%s: p50 %s, n=%d", d.tooldName, ms(d.toold.p50()), len(d.toold)), tooldCol)
	text(img, r.Min.X+marginL, r.Min.Y+42, fmt.Sprintf("%s: p50 %s, n=%d", d.baselineName, ms(d.baseline.p50()), len(d.baseline)), baseCol)
	lo := min(d.toold.quantile(0.005), d.baseline.quantile(0.005))
	hi := max(d.toold.quantile(0.995), d.baseline.quantile(0.995))
	if lo <= 0 {
		lo = time.Microsecond
	}
	if hi <= lo {
		hi = lo * 2
	}
	llo, lhi := math.Log10(float64(lo)), math.Log10(float64(hi))
	xOf := func(v time.Duration) int {
		f := (math.Log10(float64(max(v, lo))) - llo) / (lhi - llo)
		return plot.Min.X + int(math.Round(min(1, f)*float64(plot.Dx())))
	}
	yOf := func(q float64) int { return plot.Max.Y - int(math.Round(q*float64(plot.Dy()))) }
	// Grid: quartiles across, and a tick at each 1-2-5 step of time.
	for _, q := range []float64{0, 0.25, 0.5, 0.75, 1} {
		hline(img, plot.Min.X, plot.Max.X, yOf(q), grey)
		text(img, r.Min.X+8, yOf(q)+4, fmt.Sprintf("%.2f", q), black)
	}
	for _, t := range ticks(lo, hi) {
		x := xOf(t)
		vline(img, x, plot.Min.Y, plot.Max.Y, grey)
		label := tickLabel(t)
		text(img, x-len(label)*7/2, plot.Max.Y+16, label, black)
	}
	text(img, plot.Min.X+plot.Dx()/2-70, plot.Max.Y+32, "latency (log scale)", black)
	for _, s := range []struct {
		v samples
		c color.RGBA
	}{{d.baseline, baseCol}, {d.toold, tooldCol}} {
		c := slices.Clone(s.v)
		slices.Sort(c)
		px, py := -1, -1
		for i, v := range c {
			if v < lo || v > hi {
				continue
			}
			x, y := xOf(v), yOf(float64(i+1)/float64(len(c)))
			if px >= 0 {
				line(img, px, py, x, py, s.c)
				line(img, x, py, x, y, s.c)
			}
			px, py = x, y
		}
	}
	rect(img, plot, black)
}

// ticks are the 1, 2, 5 × 10^k durations between lo and hi.
func ticks(lo, hi time.Duration) []time.Duration {
	var out []time.Duration
	for p := time.Duration(1); p <= hi; p *= 10 {
		for _, m := range []time.Duration{1, 2, 5} {
			if t := p * m; t >= lo && t <= hi {
				out = append(out, t)
			}
		}
	}
	if len(out) > 7 { // keep labels apart: the 1s only
		out = slices.DeleteFunc(out, func(t time.Duration) bool {
			for t%10 == 0 {
				t /= 10
			}
			return t != 1
		})
	}
	return out
}

func text(img *image.RGBA, x, y int, s string, c color.RGBA) {
	d := font.Drawer{Dst: img, Src: &image.Uniform{c}, Face: textFace, Dot: fixed.P(x, y)}
	d.DrawString(s)
}

func hline(img *image.RGBA, x0, x1, y int, c color.RGBA) {
	for x := x0; x <= x1; x++ {
		img.SetRGBA(x, y, c)
	}
}

func vline(img *image.RGBA, x, y0, y1 int, c color.RGBA) {
	for y := y0; y <= y1; y++ {
		img.SetRGBA(x, y, c)
	}
}

func rect(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	hline(img, r.Min.X, r.Max.X, r.Min.Y, c)
	hline(img, r.Min.X, r.Max.X, r.Max.Y, c)
	vline(img, r.Min.X, r.Min.Y, r.Max.Y, c)
	vline(img, r.Max.X, r.Min.Y, r.Max.Y, c)
}

// line draws an axis-parallel segment lineWidth pixels wide (the curves
// are steps).
func line(img *image.RGBA, x0, y0, x1, y1 int, c color.RGBA) {
	if x0 > x1 {
		x0, x1 = x1, x0
	}
	if y0 > y1 {
		y0, y1 = y1, y0
	}
	for x := x0; x <= x1; x++ {
		for y := y0; y <= y1; y++ {
			for w := range lineWidth {
				img.SetRGBA(x, y-w, c)
			}
		}
	}
}

// tickLabel writes a duration in the font's ASCII (no µ).
func tickLabel(t time.Duration) string {
	switch {
	case t < time.Millisecond:
		return fmt.Sprintf("%dus", t/time.Microsecond)
	case t < time.Second:
		return fmt.Sprintf("%gms", float64(t)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%gs", t.Seconds())
}

// wrap cuts s into lines of at most n characters, at spaces; at most two.
func wrap(s string, n int) []string {
	var out []string
	for len(s) > n && len(out) < 1 {
		i := strings.LastIndexByte(s[:n], ' ')
		if i <= 0 {
			i = n
		}
		out = append(out, s[:i])
		s = strings.TrimLeft(s[i:], " ")
	}
	return append(out, s)
}
