package folder

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// ErrNotRegular is wrapped by OpenRegular's error for what is not a regular
// file: a folder, a FIFO, a device (also through a symbolic link).
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is wrapped by ReadRegular's error for a file larger than its
// bound.
var ErrTooLarge = errors.New("file too large")

// OpenRegular opens the file at path for reading if it is a regular file.
// It never blocks: a FIFO is opened without waiting for a writer, then
// refused like a device or a folder, with ErrNotRegular.
func OpenRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%w: %s is %s; a results folder holds only the files herdbench wrote", ErrNotRegular, path, kindOf(st.Mode()))
	}
	return f, nil
}

// ReadRegular reads the regular file at path (see OpenRegular), refusing
// one larger than max bytes with ErrTooLarge.
func ReadRegular(path string, max int64) ([]byte, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() > max {
		return nil, tooLarge(path, st.Size(), max)
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1)) // it may grow meanwhile
	if err == nil && int64(len(b)) > max {
		return nil, tooLarge(path, int64(len(b)), max)
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
	return fmt.Errorf("%w: %s is %s, more than the %s herdbench reads of it; is this a results folder herdbench wrote?", ErrTooLarge, path, byteText(size), byteText(max))
}

func kindOf(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&os.ModeDevice != 0, m&os.ModeCharDevice != 0:
		return "a device"
	case m&os.ModeSocket != 0:
		return "a socket"
	}
	return "not a regular file"
}

// byteText writes a size in MiB or KiB.
func byteText(n int64) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
}
