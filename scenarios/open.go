package scenarios

import (
	"errors"
	"path/filepath"
	"strings"

	"github.com/herdbench/herdbench/internal/safefile"

	"github.com/herdbench/herdbench/seeds"
)

// Opened is a scenario found, read and compiled by Open.
type Opened struct {
	*Scenario // the file as read; Filename is the name its problems are reported under
	// Builtin is set when the argument named a built-in scenario: no file
	// of that name was there.
	Builtin bool
	// Seed is the run's root seed, resolved once: Overrides.Seed, else the
	// file's, else a fresh one. Every plan has it.
	Seed uint64
	// Plans are the compiled plans: one per point of the sweep (the file's,
	// with Overrides.Set over it; one without a sweep), all checked before
	// any is returned; with Overrides.Server, the one plan a standalone
	// target or proxy serves.
	Plans []*Plan
}

// Open is the front door to a scenario: it resolves arg (a file on disk
// wins; otherwise a built-in scenario by name, with or without ".yaml"),
// reads it, resolves the run's root seed, and compiles it for a swarm or,
// with o.Server, for a standalone target or proxy; with o.Server an empty
// arg opens an empty scenario (the default target, no faults). The problems
// of every step come at once in one *Error, each with its line: a wrong
// type and a meaningless value elsewhere show together (a compile problem
// on a field that already failed to read is left out, as it would only
// repeat it).
//
// When the scenario was found but has problems, Open returns both the
// *Opened, with Filename and Source (and no plans), and the error; it
// returns a nil *Opened only when there is nothing to read (ErrNotFound, or
// an unreadable file).
func Open(arg string, o Overrides) (*Opened, error) {
	if arg == "" && o.Server {
		return OpenData("(no scenario)", []byte("name: none\n"), o)
	}
	name, data, err := find(arg)
	if err != nil {
		return nil, err
	}
	folder, builtin := safefile.In(filepath.Dir(arg)), strings.HasSuffix(name, builtinSuffix)
	if builtin {
		folder = builtinFolder()
	}
	op, err := openData(name, data, folder, o)
	op.Builtin = builtin
	return op, err
}

// OpenData is Open of a scenario given as text, named name in its
// problems; the files it names are read from name's folder.
func OpenData(name string, data []byte, o Overrides) (*Opened, error) {
	return openData(name, data, safefile.In(filepath.Dir(name)), o)
}

// openData is OpenData with the folder the scenario's files are read
// from.
func openData(name string, data []byte, folder safefile.Folder, o Overrides) (*Opened, error) {
	s, e := parse(name, data)
	if s == nil {
		return &Opened{Scenario: &Scenario{Filename: name, Source: data}}, e
	}
	s.folder = folder
	if o.Cohorts && len(s.File.Strategies) == 0 && !s.hasRootKey("strategies") {
		// The caller's cohorts are the strategies: a scenario written for
		// herdtest (or for herdbench target and proxy) needs none of its
		// own, and the compiler wants one to name.
		data = append(append([]byte(nil), data...), "\nstrategies: # the cohorts are the caller's\n  - name: herdtest\n    backoff: none\n"...)
		if s, e = parse(name, data); s == nil {
			return &Opened{Scenario: &Scenario{Filename: name, Source: data}}, e
		}
		s.folder = folder
	}
	op := &Opened{Scenario: s, Seed: seeds.Resolve(o.Seed, s.File.Seed)}
	o.Seed = &op.Seed
	var plans []*Plan
	var err error
	switch {
	case o.Server:
		var p *Plan
		if p, err = s.compileServer(o); p != nil {
			plans = []*Plan{p}
		}
	case len(e.Problems) == 0:
		plans, err = s.Expand(o)
	default:
		_, err = s.Compile(o)
	}
	if len(e.Problems) > 0 {
		var ce *Error
		if errors.As(err, &ce) {
			e.Problems = append(e.Problems, notCovered(ce.Problems, e.Problems)...)
		}
		e.Sort()
		return op, e
	}
	if err != nil {
		return op, err
	}
	op.Plans = plans
	return op, nil
}

// hasRootKey reports whether the file writes key at its top level, even
// empty.
func (s *Scenario) hasRootKey(key string) bool {
	_, ok := s.rootKey(key)
	return ok
}
