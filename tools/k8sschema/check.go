package k8sschema

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// Result is one document's verdict.
type Result struct {
	Doc     int // from 1
	Kind    string
	Name    string
	Problem error // nil: it decodes strictly into its kind's type
}

// ErrKind marks a document whose kind this package does not know.
var ErrKind = errors.New("not a kind this check knows (Job, ConfigMap, PersistentVolumeClaim)")

// Check decodes every document of a multi-document YAML stream strictly
// into its kind's type. The error is for a stream that cannot be read.
func Check(data []byte) ([]Result, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var out []Result
	for {
		raw, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return out, fmt.Errorf("document %d: %w", len(out)+1, err)
		}
		var head struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		}
		if err := yaml.Unmarshal(raw, &head); err != nil {
			return out, fmt.Errorf("document %d: %w", len(out)+1, err)
		}
		if head.Kind == "" && len(bytes.TrimSpace(withoutComments(raw))) == 0 {
			continue // only comments, as herdbench k8s's header
		}
		res := Result{Doc: len(out) + 1, Kind: head.Kind, Name: head.Metadata.Name}
		res.Problem = decode(head.Kind, raw)
		out = append(out, res)
	}
	if len(out) == 0 {
		return nil, errors.New("no documents")
	}
	return out, nil
}

func decode(kind string, raw []byte) error {
	var into any
	switch kind {
	case "Job":
		into = &batchv1.Job{}
	case "ConfigMap":
		into = &corev1.ConfigMap{}
	case "PersistentVolumeClaim":
		into = &corev1.PersistentVolumeClaim{}
	default:
		return fmt.Errorf("%q: %w", kind, ErrKind)
	}
	return yaml.UnmarshalStrict(raw, into)
}

func withoutComments(b []byte) []byte {
	var out []byte
	for line := range bytes.Lines(b) {
		if t := bytes.TrimSpace(line); len(t) > 0 && t[0] != '#' {
			out = append(out, line...)
		}
	}
	return out
}
