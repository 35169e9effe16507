package folder

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// MaxNameBytes bounds a scenario's name, which starts the name of every
// results folder of its runs.
const MaxNameBytes = 200

// ErrFolderName is wrapped by FolderIn's error for a scenario name that
// would not make a results folder directly inside --out.
var ErrFolderName = errors.New("not a results folder's name")

// NameProblem says what is wrong with a scenario's name, or "" when
// nothing is. It is the one rule of the names that become folder names
// ("<name>-<UTC time>"), for every command that writes a results folder:
// scenario runs and sweeps, the recordings of the target and the proxy,
// and merge (which takes the name from the shards' summary.json). A name
// holds letters (of any script), digits, '-', '_' and '.' only, so no
// slash, space or control character; it does not start with '.' (a hidden
// folder, and "..") or '-' (read as a flag in shell commands); it has at
// most MaxNameBytes.
func NameProblem(name string) string {
	const fix = "the name becomes the results folder's name, so write letters, digits, '-', '_' and '.' only, e.g. my-outage"
	switch {
	case name == "":
		return "missing; give the scenario a name (it names the results folder)"
	case len(name) > MaxNameBytes:
		return fmt.Sprintf("%d bytes long; a name has at most %d (it names the results folder), e.g. my-outage", len(name), MaxNameBytes)
	case name[0] == '.' || name[0] == '-':
		return fmt.Sprintf("%q starts with %q; %s", name, name[:1], fix)
	}
	for _, r := range name {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '_' && r != '.' {
			return fmt.Sprintf("%q holds %s; %s", name, DescribeRune(r), fix)
		}
	}
	return ""
}

// DescribeRune names a character for a message: printable ones quoted,
// the others by code.
func DescribeRune(r rune) string {
	switch {
	case r == ' ':
		return "a space"
	case r == utf8.RuneError:
		return "bytes that are not UTF-8 text"
	case unicode.IsPrint(r):
		return fmt.Sprintf("%q", r)
	case r == '\n' || r == '\r':
		return "a line break"
	}
	return fmt.Sprintf("the control character %U", r)
}

// FolderIn returns the path of the results folder of a run of scenario
// started at t, inside the folder out: out/<scenario>-<UTC time><suffix>
// (suffix: a shard's, or ""). Validation already refused a name that
// breaks NameProblem; FolderIn checks it again where the path is built,
// and that the path it returns is a folder directly inside out, so that no
// name from a file (a scenario, a shard's summary.json) can write anywhere
// else.
func FolderIn(out, scenario string, t time.Time, suffix string) (string, error) {
	if msg := NameProblem(scenario); msg != "" {
		return "", fmt.Errorf("%w: scenario name %s", ErrFolderName, msg)
	}
	return ChildIn(out, DirName(scenario, t)+suffix)
}

// ChildIn returns out/name, refusing a name that is not one folder
// directly inside out: empty, ".", "..", with a path separator, or hidden.
func ChildIn(out, name string) (string, error) {
	if name == "" || name == "." || name == ".." || strings.HasPrefix(name, ".") || strings.ContainsRune(name, os.PathSeparator) ||
		strings.ContainsRune(name, '/') || !filepath.IsLocal(name) {
		return "", fmt.Errorf("%w: %q is not one folder's name inside %s", ErrFolderName, name, out)
	}
	dir := filepath.Join(out, name)
	if filepath.Dir(dir) != filepath.Clean(out) {
		return "", fmt.Errorf("%w: %s is not directly inside %s", ErrFolderName, dir, out)
	}
	return dir, nil
}
