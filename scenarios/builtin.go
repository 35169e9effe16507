package scenarios

import (
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/herdbench/herdbench/internal/safefile"
)

//go:embed builtin/*.yaml
var builtin embed.FS

// Builtin is a scenario shipped inside the binary.
type Builtin struct {
	Name        string // file name without .yaml
	Description string // first line of its description
}

// Builtins lists the built-in scenarios by name.
func Builtins() ([]Builtin, error) {
	entries, err := fs.ReadDir(builtin, "builtin")
	if err != nil {
		return nil, err
	}
	var out []Builtin
	for _, e := range entries {
		data, err := builtin.ReadFile(path.Join("builtin", e.Name()))
		if err != nil {
			return nil, err
		}
		s, err := Parse(e.Name(), data)
		if err != nil {
			return nil, fmt.Errorf("built-in scenario %s: %w", e.Name(), err)
		}
		desc, _, _ := strings.Cut(strings.TrimSpace(s.File.Description), "\n")
		out = append(out, Builtin{Name: strings.TrimSuffix(e.Name(), ".yaml"), Description: desc})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// builtinFolder is the folder a built-in scenario's files are read from:
// the embedded folder it ships in, under the same rule as a folder on disk
// (the built-ins name no file today).
func builtinFolder() safefile.Folder {
	sub, err := fs.Sub(builtin, "builtin")
	if err != nil {
		panic(err) // "builtin" is a valid path: fs.Sub cannot fail
	}
	return safefile.InFS(sub, "the built-in scenarios")
}

// builtinSuffix ends the name a built-in scenario's problems are reported
// under.
const builtinSuffix = " (built-in)"

// ErrNotFound is wrapped by Open when neither a file nor a built-in matches.
var ErrNotFound = errors.New("scenario not found")

// find resolves a scenario argument: a file on disk wins; otherwise a
// built-in scenario by name, with or without ".yaml". It returns the name to
// report problems under and the file's bytes.
func find(arg string) (string, []byte, error) {
	data, err := readFile(arg)
	if err == nil {
		return arg, data, nil
	}
	name := strings.TrimSuffix(path.Base(arg), ".yaml")
	if path.Base(arg) == arg || arg == name {
		// A folder of the same name (a results folder, say) does not hide
		// the built-in scenario.
		if data, berr := builtin.ReadFile(path.Join("builtin", name+".yaml")); berr == nil && (errors.Is(err, fs.ErrNotExist) || isDir(arg)) {
			return name + ".yaml" + builtinSuffix, data, nil
		}
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", nil, fmt.Errorf("reading scenario %s: %w", arg, err)
	}
	var names []string
	if bs, err := Builtins(); err == nil {
		for _, b := range bs {
			names = append(names, b.Name)
		}
	}
	hint := ""
	if m, near := closest(name, names); near {
		hint = fmt.Sprintf(" (did you mean %q?)", m)
	}
	return "", nil, fmt.Errorf("%w: no file %q and no built-in scenario of that name%s; built-in scenarios: %s (herdbench list describes them)", ErrNotFound, arg, hint, strings.Join(names, ", "))
}

// readFile reads a scenario file, or its first MaxFileBytes + 1 bytes (Parse
// refuses a longer file), if it is a regular file (safefile.OpenPath): a
// FIFO, a device or a /proc file is refused before it is read, and a
// huge file is not read whole.
func readFile(name string) ([]byte, error) {
	f, err := safefile.OpenPath(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
}

// isDir reports whether name is a folder.
func isDir(name string) bool {
	fi, err := os.Stat(name)
	return err == nil && fi.IsDir()
}
