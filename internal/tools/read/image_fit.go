package read

import (
	"bytes"
	"context"
	"fmt"
	stdimage "image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"strings"

	"golang.org/x/image/draw"
	"golang.org/x/image/webp"

	"github.com/toold/toold/internal/tool"
)

// jpegQuality is used whenever an image is re-encoded as JPEG: high enough
// that text in a screenshot stays legible.
const jpegQuality = 85

// shrinkSteps bounds how many times an image that is still too many bytes
// at the allowed dimensions is made smaller (each step to 3/4 of the side).
const shrinkSteps = 8

// fitted is an image ready to be returned.
type fitted struct {
	data         []byte
	mediaType    string
	fromW, fromH int // original dimensions; zero when they were not read
	toW, toH     int
	fromType     string
}

func (f fitted) block() tool.Block {
	return tool.Block{Type: tool.BlockImage, MediaType: f.mediaType, Data: f.data}
}

// changed reports whether the image returned is not the file's bytes.
func (f fitted) changed() bool { return f.fromType != f.mediaType || f.resized() }

func (f fitted) resized() bool { return f.fromW != f.toW || f.fromH != f.toH }

// note tells the model what was done to the image, so that it can map
// what it sees back to the file.
func (f fitted) note() string {
	if !f.resized() {
		return fmt.Sprintf("[Image re-encoded from %s to %s to fit the size limits of images sent to the model; it keeps its %dx%d pixels.]",
			shortType(f.fromType), shortType(f.mediaType), f.toW, f.toH)
	}
	how := ""
	if f.mediaType != f.fromType {
		how = fmt.Sprintf(" and re-encoded from %s to %s", shortType(f.fromType), shortType(f.mediaType))
	}
	return fmt.Sprintf("[Image scaled down from %dx%d to %dx%d pixels%s to fit the size limits of images sent to the model. Multiply coordinates in this view by %.3g to get the original's.]",
		f.fromW, f.fromH, f.toW, f.toH, how, float64(f.fromW)/float64(f.toW))
}

func shortType(mediaType string) string {
	return strings.ToUpper(strings.TrimPrefix(mediaType, "image/"))
}

type (
	// errUndecodable: the image is too large to return as it is and cannot
	// be decoded to scale it down.
	errUndecodable struct{ err error }
	// errTooManyPixels: decoding the image would take too much memory.
	errTooManyPixels struct{ w, h int }
	// errCannotFit: even scaled down, the image stays over the byte limit.
	errCannotFit struct{}
)

func (e errUndecodable) Error() string { return "cannot decode the image: " + e.err.Error() }
func (e errTooManyPixels) Error() string {
	return fmt.Sprintf("image of %dx%d pixels is too large to decode", e.w, e.h)
}
func (errCannotFit) Error() string { return "image cannot be made small enough" }

// fitImage returns data unchanged when it is within the limits, and
// otherwise a scaled-down copy that is. An image Go cannot decode (a rare
// JPEG coding, an animated WebP) is returned as it is when it is small
// enough: the API may well take it, and it is the user's file.
func fitImage(ctx context.Context, data []byte, mediaType string, o *Options) (fitted, error) {
	same := fitted{data: data, mediaType: mediaType, fromType: mediaType}
	cfg, err := decodeConfig(data, mediaType)
	if err != nil {
		if int64(len(data)) <= o.MaxImageBytes {
			return same, nil
		}
		return fitted{}, errUndecodable{err}
	}
	same.fromW, same.fromH, same.toW, same.toH = cfg.Width, cfg.Height, cfg.Width, cfg.Height
	if max(cfg.Width, cfg.Height) <= o.MaxImageDimension && int64(len(data)) <= o.MaxImageBytes {
		return same, nil
	}
	if int64(cfg.Width)*int64(cfg.Height) > o.MaxImagePixels {
		return fitted{}, errTooManyPixels{cfg.Width, cfg.Height}
	}
	if err := ctx.Err(); err != nil {
		return fitted{}, err
	}
	src, err := decode(data, mediaType)
	if err != nil {
		return fitted{}, errUndecodable{err}
	}
	w, h := scaledSize(cfg.Width, cfg.Height, o.MaxImageDimension)
	for range shrinkSteps {
		if err := ctx.Err(); err != nil {
			return fitted{}, err
		}
		img := src
		if w != cfg.Width || h != cfg.Height {
			img = scale(src, w, h)
		}
		out, outType, err := encode(img, mediaType, o.MaxImageBytes)
		if err != nil {
			return fitted{}, err
		}
		if int64(len(out)) <= o.MaxImageBytes {
			return fitted{data: out, mediaType: outType, fromType: mediaType,
				fromW: cfg.Width, fromH: cfg.Height, toW: w, toH: h}, nil
		}
		w, h = max(w*3/4, 1), max(h*3/4, 1)
	}
	return fitted{}, errCannotFit{}
}

func decodeConfig(data []byte, mediaType string) (stdimage.Config, error) {
	r := bytes.NewReader(data)
	switch mediaType {
	case "image/png":
		return png.DecodeConfig(r)
	case "image/jpeg":
		return jpeg.DecodeConfig(r)
	case "image/gif":
		return gif.DecodeConfig(r)
	case "image/webp":
		return webp.DecodeConfig(r)
	}
	return stdimage.Config{}, fmt.Errorf("unsupported image type %s", mediaType)
}

// decode returns the image; of an animated GIF, its first frame.
func decode(data []byte, mediaType string) (stdimage.Image, error) {
	r := bytes.NewReader(data)
	switch mediaType {
	case "image/png":
		return png.Decode(r)
	case "image/jpeg":
		return jpeg.Decode(r)
	case "image/gif":
		return gif.Decode(r)
	case "image/webp":
		return webp.Decode(r)
	}
	return nil, fmt.Errorf("unsupported image type %s", mediaType)
}

// scaledSize fits w×h within maxSide on its longer side, keeping the
// aspect ratio.
func scaledSize(w, h, maxSide int) (int, int) {
	if w <= maxSide && h <= maxSide {
		return w, h
	}
	if w >= h {
		return maxSide, max(int(int64(h)*int64(maxSide)/int64(w)), 1)
	}
	return max(int(int64(w)*int64(maxSide)/int64(h)), 1), maxSide
}

// scale resamples src to w×h. Catmull-Rom keeps thin lines and small text
// readable where cheaper filters alias them.
func scale(src stdimage.Image, w, h int) stdimage.Image {
	dst := stdimage.NewRGBA(stdimage.Rect(0, 0, w, h))
	draw.CatmullRom.Scale(dst, dst.Bounds(), src, src.Bounds(), draw.Src, nil)
	return dst
}

// encode writes img as JPEG when the original was one, and otherwise as
// PNG (lossless, right for screenshots and diagrams), falling back to JPEG
// when the PNG is over limit.
func encode(img stdimage.Image, fromType string, limit int64) ([]byte, string, error) {
	if fromType != "image/jpeg" {
		var b bytes.Buffer
		enc := png.Encoder{}
		if err := enc.Encode(&b, img); err != nil {
			return nil, "", fmt.Errorf("encoding the scaled image: %w", err)
		}
		if int64(b.Len()) <= limit {
			return b.Bytes(), "image/png", nil
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, flatten(img), &jpeg.Options{Quality: jpegQuality}); err != nil {
		return nil, "", fmt.Errorf("encoding the scaled image: %w", err)
	}
	return b.Bytes(), "image/jpeg", nil
}

// flatten draws an image with transparency over white: JPEG has no alpha,
// and the encoder would otherwise show transparent parts as black.
func flatten(img stdimage.Image) stdimage.Image {
	if o, ok := img.(interface{ Opaque() bool }); ok && o.Opaque() {
		return img
	}
	dst := stdimage.NewRGBA(img.Bounds())
	draw.Draw(dst, dst.Bounds(), stdimage.NewUniform(color.White), stdimage.Point{}, draw.Src)
	draw.Draw(dst, dst.Bounds(), img, img.Bounds().Min, draw.Over)
	return dst
}
