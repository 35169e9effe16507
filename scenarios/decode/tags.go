package decode

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// knownTags are the YAML tags a scenario may write explicitly: the core
// schema's, which only say what the plain value already is (!!str 10 is the
// text "10"). Every other tag is refused rather than dropped: yaml.v3 reads
// `!!python/object:os.system b` as the text b, and a file that means
// something else than it says must not run. !!binary and !!timestamp are
// refused too: no field takes bytes or an instant (durations are "250ms"
// strings), so a value so tagged would be read as something it does not say.
var knownTags = []string{"!!str", "!!int", "!!float", "!!bool", "!!null", "!!map", "!!seq"}

// Tags reports every node under n that carries an explicit tag other
// than knownTags, with its line and field path. Aliases are not followed:
// the node they name is checked where it is defined.
func Tags(n *yaml.Node, path string, e *Error) {
	if n == nil {
		return
	}
	if n.Style&yaml.TaggedStyle != 0 && !slices.Contains(knownTags, n.ShortTag()) {
		e.Problems = append(e.Problems, Problem{Line: n.Line, Path: path, Msg: tagProblem(n.ShortTag())})
	}
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			Tags(c, path, e)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			p := Join(path, k.Value)
			Tags(k, p, e)
			Tags(v, p, e)
		}
	case yaml.SequenceNode:
		for i, item := range n.Content {
			Tags(item, Index(path, i), e)
		}
	}
}

func tagProblem(tag string) string {
	what := "herdbench does not read YAML tags"
	if tag == "!!binary" || tag == "!!timestamp" {
		what = "no field of a scenario takes bytes or an instant (write durations as text, e.g. 250ms)"
	}
	return fmt.Sprintf("the YAML tag %s is refused: %s; remove the tag and write the plain value (the tags allowed are %s, which change nothing)", tag, what, strings.Join(knownTags, ", "))
}
