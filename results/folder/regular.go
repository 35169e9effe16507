package folder

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/herdbench/herdbench/internal/safefile"
)

// ErrNotRegular is wrapped by OpenRegular's error for what is not a regular
// file: a folder, a FIFO, a device, a file of the kernel's (/proc, /sys).
var ErrNotRegular = safefile.ErrNotRegular

// ErrLink is wrapped by OpenRegular's error for a symbolic link.
var ErrLink = safefile.ErrLink

// ErrTooLarge is wrapped by ReadRegular's error for a file larger than its
// bound.
var ErrTooLarge = safefile.ErrTooLarge

// OpenRegular opens the file at path, a file of a results folder, for
// reading if it is a regular file and not a symbolic link: a folder
// someone shared may link scenario.yaml to the reader's own secrets, which
// the report would then show. It never blocks: a FIFO is opened without
// waiting for a writer, then refused like a device or a folder, with
// ErrNotRegular (safefile's rule).
func OpenRegular(path string) (*os.File, error) {
	f, err := safefile.OpenNoLink(path)
	if errors.Is(err, ErrNotRegular) || errors.Is(err, ErrLink) {
		return nil, fmt.Errorf("%w; a results folder holds only the files herdbench wrote", err)
	}
	return f, err
}

// ReadRegular reads the regular file at path (see OpenRegular), refusing
// one larger than max bytes with ErrTooLarge.
func ReadRegular(path string, max int64) ([]byte, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := safefile.ReadAll(f, path, max)
	if errors.Is(err, ErrTooLarge) {
		return nil, fmt.Errorf("%w; is this a results folder herdbench wrote?", err)
	}
	return b, err
}

// OpenBounded opens the regular file at path (see OpenRegular) to read at
// most max bytes of it, as a stream: a file larger than max when opened,
// or grown past it while read, is refused with ErrTooLarge. Once ctx ends
// a read fails with ctx's error, so that a long read stops at the next
// buffer when interrupted.
func OpenBounded(ctx context.Context, path string, max int64) (io.ReadCloser, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if st.Size() > max {
		f.Close()
		return nil, tooLarge(path, st.Size(), max)
	}
	return &bounded{ctx: ctx, f: f, path: path, max: max}, nil
}

// bounded is OpenBounded's reader.
type bounded struct {
	ctx  context.Context
	f    *os.File
	path string
	max  int64 // bytes allowed
	read int64 // bytes read so far
}

func (b *bounded) Read(p []byte) (int, error) {
	if err := b.ctx.Err(); err != nil {
		return 0, err
	}
	if left := b.max - b.read; int64(len(p)) > left+1 {
		p = p[:left+1] // one byte more than allowed tells a file that grew
	}
	n, err := b.f.Read(p)
	b.read += int64(n)
	if b.read > b.max {
		return 0, tooLarge(b.path, b.read, b.max)
	}
	return n, err
}

// Seek moves in the file, so that it can be read again; what was read
// counts from the new offset.
func (b *bounded) Seek(offset int64, whence int) (int64, error) {
	n, err := b.f.Seek(offset, whence)
	if err == nil {
		b.read = n
	}
	return n, err
}

func (b *bounded) Close() error { return b.f.Close() }

func tooLarge(path string, size, max int64) error {
	return fmt.Errorf("%w; is this a results folder herdbench wrote?", safefile.TooLarge(path, size, max))
}
