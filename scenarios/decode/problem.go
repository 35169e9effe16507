package decode

import (
	"errors"
	"fmt"
	"github.com/herdbench/herdbench/internal/spoken"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Problem is one thing wrong with a scenario or a fault.
type Problem struct {
	Line int    // 1-based; 0 when unknown
	Path string // field path, e.g. "strategies[1].cap"; "" for the whole file
	Msg  string // what is wrong and what would be valid
}

func (p Problem) String() string {
	var b strings.Builder
	if p.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", p.Line)
	}
	if p.Path != "" {
		b.WriteString(p.Path + ": ")
	}
	b.WriteString(p.Msg)
	return b.String()
}

// ErrInvalid is matched (errors.Is) by every *Error.
var ErrInvalid = errors.New("invalid scenario")

// Error lists every problem found in one scenario file (or one fault).
type Error struct {
	File     string
	Problems []Problem
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s:", e.File, spoken.Count(len(e.Problems), "problem", "problems"))
	for _, p := range e.Problems {
		b.WriteString("\n  ")
		if p.Line > 0 {
			fmt.Fprintf(&b, "%s:%d: ", e.File, p.Line)
		} else {
			b.WriteString(e.File + ": ")
		}
		if p.Path != "" {
			b.WriteString(p.Path + ": ")
		}
		b.WriteString(p.Msg)
	}
	return b.String()
}

// Is makes errors.Is(err, ErrInvalid) true.
func (e *Error) Is(target error) bool { return target == ErrInvalid }

// Sort orders the problems by line, those without one last, and lists a
// problem found twice once (a tier's strategy inherits the cohort's
// fields, and with them their problems).
func (e *Error) Sort() {
	seen := map[Problem]bool{}
	kept := e.Problems[:0]
	for _, p := range e.Problems {
		if !seen[p] {
			seen[p] = true
			kept = append(kept, p)
		}
	}
	e.Problems = kept
	sort.SliceStable(e.Problems, func(i, j int) bool {
		a, b := e.Problems[i], e.Problems[j]
		if (a.Line == 0) != (b.Line == 0) {
			return a.Line != 0
		}
		return a.Line < b.Line
	})
}

// levenshtein returns the edit distance between a and b.
func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Closest returns the candidate nearest to s if it is a plausible typo:
// the did-you-mean of every "unknown" message.
func Closest(s string, candidates []string) (string, bool) {
	best, bestD := "", 3
	for _, c := range candidates {
		if d := levenshtein(s, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best, best != ""
}

// ValidList lists the valid names in a message.
func ValidList(names []string) string {
	return strings.Join(names, ", ")
}

var lineRE = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)

// LineProblem splits the "line N: msg" form the YAML library uses.
func LineProblem(msg string) Problem {
	if m := lineRE.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return Problem{Line: n, Msg: m[2]}
	}
	return Problem{Msg: strings.TrimPrefix(msg, "yaml: ")}
}

// SyntaxProblem is a YAML syntax error in data as a problem, with what to
// look for. The YAML library reports a tab in the indentation at the line
// before it (where the block it breaks began), so a tab error names the
// first line at or after that one whose indentation holds a tab; any error
// at a line indented with a tab says so.
func SyntaxProblem(err error, data []byte) Problem {
	p := LineProblem(err.Error())
	if p.Line > 0 {
		n := tabIndentedLine(data, p.Line)
		if n == p.Line || n > 0 && strings.Contains(p.Msg, "tab") {
			p.Line = n
			p.Msg = "YAML syntax: a tab in this line's indentation; YAML indents with spaces only (replace the tab with spaces, as many as the lines around it use)"
			return p
		}
	}
	parserErr := slices.Contains(parserProblems, p.Msg)
	if parserErr && p.Line > 0 {
		// The YAML library counts a parser error's line from 0 (its
		// scanner errors from 1): it names the line before the block,
		// list or {…} whose parse failed.
		p.Line++
	}
	msg := p.Msg
	p.Msg = "YAML syntax: " + msg
	switch {
	case p.Line == 0:
	case msg == "did not find expected ',' or '}'" || msg == "did not find expected ',' or ']'":
		p.Msg += " (inside a { } or [ ] that starts on this line, a value holding braces, brackets, a comma or \": \" needs quotes, e.g. {path: \"/users/{client}\"}; or write the item as indented lines)"
	case parserErr:
		p.Msg += " (YAML nests by indentation: check this line and the ones below it, e.g. a key indented differently from its siblings, or a missing space after a colon)"
	default:
		p.Msg += " (YAML nests by indentation: check this line and the lines just above it, e.g. a key indented differently from its siblings, or a missing space after a colon)"
	}
	return p
}

// parserProblems are the YAML library's parser errors (as opposed to its
// scanner's), whose line it counts from 0.
var parserProblems = []string{
	"did not find expected ',' or '}'",
	"did not find expected ',' or ']'",
	"did not find expected '-' indicator",
	"did not find expected key",
	"did not find expected node content",
	"did not find expected <document start>",
}

// tabIndentedLine is the number of the first line at or after from whose
// leading white space holds a tab, or 0.
func tabIndentedLine(data []byte, from int) int {
	for i, line := range strings.Split(string(data), "\n") {
		if i+1 < from {
			continue
		}
		indent := line[:len(line)-len(strings.TrimLeft(line, " \t"))]
		if strings.Contains(indent, "\t") {
			return i + 1
		}
	}
	return 0
}

// Join is the path of key k under path.
func Join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

// Index is the path of item i under path.
func Index(path string, i int) string {
	return fmt.Sprintf("%s[%d]", path, i)
}
