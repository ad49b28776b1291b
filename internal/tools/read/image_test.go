package read

import (
	"bytes"
	stdimage "image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tool/tooltest"
)

var (
	red  = color.NRGBA{255, 0, 0, 255}
	blue = color.NRGBA{0, 0, 255, 255}
)

// halves is a w×h image whose left half is red and right half blue, so
// that a scaled copy can be checked for orientation as well as size.
func halves(w, h int) *stdimage.NRGBA {
	img := stdimage.NewNRGBA(stdimage.Rect(0, 0, w, h))
	for x := range w {
		c := blue
		if x < w/2 {
			c = red
		}
		img.SetNRGBA(x, 0, c)
	}
	row := img.Pix[:img.Stride]
	for y := 1; y < h; y++ {
		copy(img.Pix[y*img.Stride:], row)
	}
	return img
}

// noise is a w×h image of random pixels: it does not compress, so its
// encoded size is about 3 or 4 bytes a pixel.
func noise(w, h int) *stdimage.NRGBA {
	rng := rand.New(rand.NewPCG(1, 2))
	img := stdimage.NewNRGBA(stdimage.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = byte(rng.Uint32())
	}
	for i := 3; i < len(img.Pix); i += 4 {
		img.Pix[i] = 255
	}
	return img
}

func encodePNG(t testing.TB, img stdimage.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func encodeJPEG(t testing.TB, img stdimage.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func encodeGIF(t testing.TB, img stdimage.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := gif.Encode(&b, img, nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// readImage reads the file and returns its image block, decoded, and the
// text of the result.
func readImage(t *testing.T, opts Options, name string, data []byte) (tool.Block, stdimage.Image, *tool.Result) {
	t.Helper()
	env, st, _ := tooltest.Env(t)
	p := put(t, env.Cwd, name, string(data))
	res, err := tooltest.Run(t, New(opts), env, map[string]any{"file_path": p})
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if len(res.Content) == 0 || res.Content[0].Type != tool.BlockImage {
		t.Fatalf("content = %+v, want an image block first", res.Content)
	}
	b := res.Content[0]
	img, format, err := stdimage.Decode(bytes.NewReader(b.Data))
	if err != nil {
		t.Fatalf("the returned image does not decode: %v", err)
	}
	if "image/"+format != b.MediaType {
		t.Fatalf("media type %s, but the data is %s", b.MediaType, format)
	}
	assertStamp(t, st, p)
	return b, img, res
}

func assertSize(t *testing.T, img stdimage.Image, w, h int) {
	t.Helper()
	if got := img.Bounds().Size(); got != (stdimage.Point{X: w, Y: h}) {
		t.Fatalf("image is %dx%d, want %dx%d", got.X, got.Y, w, h)
	}
}

// assertColor checks a pixel, within what lossy coding changes.
func assertColor(t *testing.T, img stdimage.Image, x, y int, want color.NRGBA) {
	t.Helper()
	got := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
	near := func(a, b uint8) bool { return max(a, b)-min(a, b) <= 24 }
	if !near(got.R, want.R) || !near(got.G, want.G) || !near(got.B, want.B) {
		t.Fatalf("pixel (%d,%d) = %v, want about %v", x, y, got, want)
	}
}

func TestReadRealImagesWithinLimitsUnchanged(t *testing.T) {
	src := halves(120, 60)
	for _, tc := range []struct {
		name, mediaType string
		data            []byte
	}{
		{"png", "image/png", encodePNG(t, src)},
		{"jpeg", "image/jpeg", encodeJPEG(t, src)},
		{"gif", "image/gif", encodeGIF(t, src)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, img, res := readImage(t, Options{}, "small."+tc.name, tc.data)
			if len(res.Content) != 1 || res.Meta != nil {
				t.Fatalf("content %d blocks, meta %v: an image within limits needs no note", len(res.Content), res.Meta)
			}
			if b.MediaType != tc.mediaType || !bytes.Equal(b.Data, tc.data) {
				t.Fatalf("got %s of %d bytes, want the file's own %d bytes of %s", b.MediaType, len(b.Data), len(tc.data), tc.mediaType)
			}
			assertSize(t, img, 120, 60)
		})
	}
}

func TestReadImageScaledDown(t *testing.T) {
	webp, err := os.ReadFile("testdata/wide.webp") // 600x300, red left, blue right
	if err != nil {
		t.Fatal(err)
	}
	small := Options{MaxImageDimension: 400}
	tests := []struct {
		name     string
		opts     Options
		data     []byte
		wantType string
		w, h     int
		note     string
	}{
		{name: "wide png, default limit", data: encodePNG(t, halves(2400, 1200)), wantType: "image/png", w: 2000, h: 1000,
			note: "[Image scaled down from 2400x1200 to 2000x1000 pixels to fit the size limits of images sent to the model. Multiply coordinates in this view by 1.2 to get the original's.]"},
		{name: "tall jpeg", opts: small, data: encodeJPEG(t, halves(100, 800)), wantType: "image/jpeg", w: 50, h: 400,
			note: "[Image scaled down from 100x800 to 50x400 pixels to fit the size limits of images sent to the model. Multiply coordinates in this view by 2 to get the original's.]"},
		{name: "gif becomes png", opts: small, data: encodeGIF(t, halves(440, 80)), wantType: "image/png", w: 400, h: 72,
			note: "[Image scaled down from 440x80 to 400x72 pixels and re-encoded from GIF to PNG to fit the size limits of images sent to the model. Multiply coordinates in this view by 1.1 to get the original's.]"},
		{name: "webp becomes png", opts: small, data: webp, wantType: "image/png", w: 400, h: 200,
			note: "[Image scaled down from 600x300 to 400x200 pixels and re-encoded from WEBP to PNG to fit the size limits of images sent to the model. Multiply coordinates in this view by 1.5 to get the original's.]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, img, res := readImage(t, tc.opts, "picture", tc.data)
			if b.MediaType != tc.wantType {
				t.Fatalf("media type %s, want %s", b.MediaType, tc.wantType)
			}
			assertSize(t, img, tc.w, tc.h)
			assertColor(t, img, tc.w/4, tc.h/2, red)
			assertColor(t, img, tc.w*3/4, tc.h/2, blue)
			// As in Claude Code, the image comes alone.
			if len(res.Content) != 1 {
				t.Fatalf("content = %d blocks, want the image alone", len(res.Content))
			}
			if res.Meta["image_original_size"] == nil {
				t.Fatalf("meta = %v, want image_original_size", res.Meta)
			}
		})
	}
}

func TestReadImageOverByteLimit(t *testing.T) {
	// 300x300 of noise is about 270 KB as PNG; 50 KB takes JPEG and a
	// smaller size.
	const limit = 50 << 10
	data := encodePNG(t, noise(300, 300))
	b, img, res := readImage(t, Options{MaxImageBytes: limit}, "noise.png", data)
	if len(b.Data) > limit {
		t.Fatalf("returned %d bytes, over the %d limit", len(b.Data), limit)
	}
	if b.MediaType != "image/jpeg" {
		t.Fatalf("media type %s: noise does not fit as PNG, JPEG was expected", b.MediaType)
	}
	size := img.Bounds().Size()
	if size.X > 300 || size.X != size.Y {
		t.Fatalf("size %v: the aspect ratio must be kept", size)
	}
	if len(res.Content) != 1 || res.Meta["image_original_size"] != "300x300" {
		t.Fatalf("content %d blocks, meta %v", len(res.Content), res.Meta)
	}
}

func TestReadImageTransparencyFlattenedOnWhite(t *testing.T) {
	img := noise(200, 200)
	// The left half fully transparent (and black underneath).
	for y := range 200 {
		for x := range 100 {
			img.SetNRGBA(x, y, color.NRGBA{0, 0, 0, 0})
		}
	}
	b, got, _ := readImage(t, Options{MaxImageBytes: 40 << 10}, "alpha.png", encodePNG(t, img))
	if b.MediaType != "image/jpeg" {
		t.Fatalf("media type %s, want JPEG", b.MediaType)
	}
	s := got.Bounds().Size()
	assertColor(t, got, s.X/8, s.Y/2, color.NRGBA{255, 255, 255, 255})
}

func TestReadImageRefusals(t *testing.T) {
	t.Run("too many pixels", func(t *testing.T) {
		env, st, _ := tooltest.Env(t)
		p := put(t, env.Cwd, "big.png", string(encodePNG(t, stdimage.NewGray(stdimage.Rect(0, 0, 2500, 1000)))))
		_, err := tooltest.Run(t, New(Options{MaxImagePixels: 2_000_000}), env, map[string]any{"file_path": p})
		want := p + " is an image (image/png) of 2500x1000 pixels; images over 2 megapixels are not scaled down here. Make a smaller copy (for example with ImageMagick through Bash) and read that."
		if err == nil || err.Error() != want {
			t.Fatalf("err = %v\nwant  %s", err, want)
		}
		if len(st.Stamps) != 0 {
			t.Fatal("a refused image was recorded as read")
		}
	})
	t.Run("file too large to decode", func(t *testing.T) {
		env, _, _ := tooltest.Env(t)
		p := put(t, env.Cwd, "big.png", string(encodePNG(t, noise(300, 300))))
		_, err := tooltest.Run(t, New(Options{MaxImageBytes: 1000, MaxImageFileBytes: 10_000}), env, map[string]any{"file_path": p})
		if err == nil || !strings.Contains(err.Error(), "images larger than 9.8 KiB cannot be returned") {
			t.Fatalf("err = %v", err)
		}
	})
}
