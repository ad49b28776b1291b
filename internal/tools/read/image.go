package read

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"io/fs"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tools/filestate"
)

// image returns the file as an image block, scaled down and re-encoded
// when it is larger than the API takes, with a note giving the original
// size so that the model can map what it sees back to the file.
func (c *call) image(ctx context.Context, t filestate.Target, fi fs.FileInfo, br *bufio.Reader, mediaType string) (*tool.Result, error) {
	limit := max(c.opts.MaxImageFileBytes, c.opts.MaxImageBytes)
	if fi.Size() > limit {
		return nil, c.imageTooBig(t.Given.Abs, mediaType, fi.Size(), limit)
	}
	data, err := io.ReadAll(io.LimitReader(br, limit+1))
	if err != nil {
		return nil, filestate.AccessError(t.Given.Abs, err)
	}
	if int64(len(data)) > limit {
		return nil, c.imageTooBig(t.Given.Abs, mediaType, int64(len(data)), limit)
	}
	img, err := fitImage(ctx, data, mediaType, c.opts)
	if err != nil {
		return nil, c.imageError(t.Given.Abs, mediaType, int64(len(data)), err)
	}
	res := &tool.Result{Content: []tool.Block{img.block()}}
	if img.changed() {
		// Claude Code returns the image alone; the original size travels
		// beside the content.
		res.WithMeta("image_original_size", fmt.Sprintf("%dx%d", img.fromW, img.fromH))
	}
	return res, nil
}

func (c *call) imageTooBig(path, mediaType string, size, limit int64) error {
	return tool.Failf("%s is an image (%s) of %s; images larger than %s cannot be returned. Make a smaller copy (for example with ImageMagick through Bash) and read that.",
		path, mediaType, tool.HumanBytes(size), tool.HumanBytes(limit))
}

// imageError words a failure of fitImage for the model.
func (c *call) imageError(path, mediaType string, size int64, err error) error {
	switch e := err.(type) {
	case errUndecodable:
		// Too large to return as it is, and not an image Go can decode to
		// scale down: the same advice as for a file past every limit.
		return c.imageTooBig(path, mediaType, size, c.opts.MaxImageBytes)
	case errTooManyPixels:
		return tool.Failf("%s is an image (%s) of %dx%d pixels; images over %d megapixels are not scaled down here. Make a smaller copy (for example with ImageMagick through Bash) and read that.",
			path, mediaType, e.w, e.h, c.opts.MaxImagePixels/1_000_000)
	case errCannotFit:
		return tool.Failf("%s is an image (%s) that could not be made smaller than %s. Make a smaller copy (for example with ImageMagick through Bash) and read that.",
			path, mediaType, tool.HumanBytes(c.opts.MaxImageBytes))
	}
	return err
}
