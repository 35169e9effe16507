package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// ErrOutside is wrapped by Folder.Read's error for a name that is not
// inside the folder: an absolute path, one that climbs out with "..", or a
// symbolic link that leads out.
var ErrOutside = errors.New("outside the folder")

// ErrNotRegular is wrapped by the error for what is not a regular file: a
// folder, a FIFO, a device, a socket, a file of the kernel's (/proc, /sys).
var ErrNotRegular = errors.New("not a regular file")

// ErrLink is wrapped by OpenNoLink's error for a symbolic link.
var ErrLink = errors.New("a symbolic link")

// ErrTooLarge is wrapped by the error for a file larger than its bound.
var ErrTooLarge = errors.New("file too large")

// Error is a file refused or unread: it says what is wrong with the file
// it names, and never quotes the file.
type Error struct {
	Name string // the file as named (by the scenario, the flag, the folder)
	Why  string // what is wrong with it, after its name: "is a device"
	Err  error  // the sentinel or system error it wraps
}

func (e *Error) Error() string { return e.Name + " " + e.Why }

func (e *Error) Unwrap() error { return e.Err }

func refuse(name string, err error, format string, args ...any) error {
	return &Error{Name: name, Why: fmt.Sprintf(format, args...), Err: err}
}

// Folder is a folder the files a scenario names are read from, on disk
// (In) or in a read-only file system (InFS). The zero Folder reads
// nothing.
type Folder struct {
	dir  string // on disk; "" with fsys
	fsys fs.FS
	name string // how messages name the folder
}

// In is the folder dir on disk. Messages name it by its absolute path.
func In(dir string) Folder {
	name, err := filepath.Abs(dir)
	if err != nil {
		name = dir
	}
	return Folder{dir: dir, name: name}
}

// InFS is the folder at the root of fsys, named name in messages (the
// built-in scenarios' embedded files).
func InFS(fsys fs.FS, name string) Folder { return Folder{fsys: fsys, name: name} }

// String names the folder as messages do.
func (d Folder) String() string { return d.name }

// Read reads the file name, relative to the folder, if it is inside it and
// a regular file of at most max bytes (see the package's rule). Its errors
// name the file as given and never quote it.
func (d Folder) Read(name string, max int64) ([]byte, error) {
	if err := d.check(name); err != nil {
		return nil, err
	}
	if d.fsys != nil {
		return d.readFS(name, max)
	}
	root, err := os.OpenRoot(d.dir)
	if err != nil {
		return nil, refuse(name, errnoOf(err), "cannot be read: its folder %s cannot be opened (%v)", d.name, errnoOf(err))
	}
	defer root.Close()
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, d.openError(name, err)
	}
	defer f.Close()
	observe(f)
	return ReadAll(f, name, max)
}

// check refuses, before anything is opened, a name that is not a file
// inside the folder by its letters alone.
func (d Folder) check(name string) error {
	switch {
	case d.dir == "" && d.fsys == nil:
		return refuse(name, fs.ErrNotExist, "cannot be read: there is no folder to read it from")
	case name == "":
		return refuse(name, fs.ErrInvalid, "names no file")
	case filepath.IsAbs(name):
		return refuse(name, ErrOutside, "is an absolute path: a file is named relative to the folder %s and read from inside it", d.name)
	case !filepath.IsLocal(name):
		return refuse(name, ErrOutside, "climbs out of the folder %s: a file is read from inside it", d.name)
	}
	return nil
}

// openError says why the os.Root of the folder did not open name: an
// error of the system (no such file, permission), or a symbolic link that
// leads out of the folder, which os.Root refuses without opening it.
func (d Folder) openError(name string, err error) error {
	var errno syscall.Errno
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return refuse(name, fs.ErrNotExist, "is not in the folder %s", d.name)
	case errors.As(err, &errno):
		return refuse(name, errno, "cannot be opened: %v", errno)
	}
	return refuse(name, ErrOutside, "leads out of the folder %s through a symbolic link: a file is read from inside it", d.name)
}

// readFS reads name from the folder's file system, under the same rule.
func (d Folder) readFS(name string, max int64) ([]byte, error) {
	f, err := d.fsys.Open(filepath.ToSlash(filepath.Clean(name)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, refuse(name, fs.ErrNotExist, "is not in %s", d.name)
	}
	if err != nil {
		return nil, refuse(name, errnoOf(err), "cannot be opened: %v", errnoOf(err))
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, refuse(name, ErrNotRegular, "is %s, not a regular file", kindOf(st.Mode()))
	}
	return readBounded(f, st.Size(), name, max)
}

// ReadPath reads the file at path, a path the user typed on the command
// line (--header-file, a token file): anywhere, relative to the working
// directory or absolute, links followed, if it is a regular file of at most
// max bytes.
func ReadPath(path string, max int64) ([]byte, error) {
	f, err := OpenPath(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadAll(f, path, max)
}

// OpenPath opens the file at path, a path the user typed, if it is a
// regular file (see ReadPath).
func OpenPath(path string) (*os.File, error) {
	return open(path, os.O_RDONLY|syscall.O_NONBLOCK)
}

// OpenNoLink opens the file at path, a file of a folder herdbench wrote,
// if it is a regular file and its name is not a symbolic link (ErrLink).
func OpenNoLink(path string) (*os.File, error) {
	f, err := open(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW)
	if errors.Is(err, syscall.ELOOP) {
		return nil, refuse(path, ErrLink, "is a symbolic link, which herdbench does not follow here")
	}
	return f, err
}

func open(path string, flag int) (*os.File, error) {
	f, err := os.OpenFile(path, flag, 0)
	if err != nil {
		return nil, refuse(path, errnoOf(err), "cannot be opened: %v", errnoOf(err))
	}
	observe(f)
	if err := Check(f, path); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Check refuses f, an opened file named name in messages, if it is not a
// regular file (ErrNotRegular), by the descriptor itself.
func Check(f *os.File, name string) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return refuse(name, ErrNotRegular, "is %s, not a regular file", kindOf(st.Mode()))
	}
	if kernelFile(f) {
		return refuse(name, ErrNotRegular, "is a file of the kernel's (/proc, /sys), not a regular file: its size says nothing of what it reads")
	}
	return nil
}

// ReadAll checks f (Check), then reads it whole if it holds at most max
// bytes: its size is a first refusal, never the bound, which is the reading
// itself (a file may grow meanwhile).
func ReadAll(f *os.File, name string, max int64) ([]byte, error) {
	if err := Check(f, name); err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return readBounded(f, st.Size(), name, max)
}

func readBounded(r io.Reader, size int64, name string, max int64) ([]byte, error) {
	if size > max {
		return nil, TooLarge(name, size, max)
	}
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, refuse(name, errnoOf(err), "cannot be read: %v", errnoOf(err))
	}
	if int64(len(b)) > max {
		return nil, refuse(name, ErrTooLarge, "holds more than the %s herdbench reads of it", byteText(max))
	}
	return b, nil
}

// TooLarge is the error for the file name of size bytes, or more, above
// its bound max.
func TooLarge(name string, size, max int64) error {
	return refuse(name, ErrTooLarge, "is %s, more than the %s herdbench reads of it", byteText(size), byteText(max))
}

// errnoOf is err's system error alone when it has one (a path error's
// path may be a long resolved one: messages name the file as given).
func errnoOf(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// kindOf says what a file that is not regular is.
func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeDevice != 0, m&fs.ModeCharDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "not a regular file"
}

// byteText writes a size in bytes, KiB, MiB or GiB.
func byteText(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

var (
	observerMu sync.Mutex
	observer   func(*os.File)
)

// Observe calls fn with every file this package opens from now on, before
// it is checked or read, until stop is called: a test sees what was
// really opened (its descriptor) and holds the rule with it.
func Observe(fn func(*os.File)) (stop func()) {
	observerMu.Lock()
	observer = fn
	observerMu.Unlock()
	return func() {
		observerMu.Lock()
		observer = nil
		observerMu.Unlock()
	}
}

func observe(f *os.File) {
	observerMu.Lock()
	fn := observer
	observerMu.Unlock()
	if fn != nil {
		fn(f)
	}
}
