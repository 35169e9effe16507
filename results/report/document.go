package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// Document is summary.json read generically, keeping the order of its
// fields, so the report's tables show every field, including ones added
// after this renderer was written.
type Document struct {
	// Fields are the top-level fields other than "runs", in file order.
	Fields []Member
	// Runs are the cohorts' entries, each flattened (see Field).
	Runs [][]Field
}

// Member is one top-level field of a JSON object.
type Member struct {
	Key string
	Raw json.RawMessage
}

// Field is one leaf of a flattened JSON value: its path (object keys joined
// by ".", array elements as "[i]") and its value as text. Null is "null";
// an empty array "[]".
type Field struct {
	Path, Text string
}

func parseDocument(data []byte) (Document, error) {
	var doc Document
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return doc, fmt.Errorf("not a JSON object")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return doc, err
		}
		key := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return doc, fmt.Errorf("%s: %w", key, err)
		}
		if key != "runs" {
			doc.Fields = append(doc.Fields, Member{Key: key, Raw: raw})
			continue
		}
		var runs []json.RawMessage
		if err := json.Unmarshal(raw, &runs); err != nil {
			return doc, fmt.Errorf("runs: %w", err)
		}
		for i, r := range runs {
			fields, err := flatten(r)
			if err != nil {
				return doc, fmt.Errorf("runs[%d]: %w", i, err)
			}
			doc.Runs = append(doc.Runs, fields)
		}
	}
	return doc, nil
}

// flatten returns the leaves of a JSON value in document order.
func flatten(raw json.RawMessage) ([]Field, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var out []Field
	if err := flattenValue(dec, "", &out); err != nil {
		return nil, err
	}
	return out, nil
}

func flattenValue(dec *json.Decoder, path string, out *[]Field) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch v := tok.(type) {
	case json.Delim:
		n := 0
		for ; dec.More(); n++ {
			sub := fmt.Sprintf("%s[%d]", path, n)
			if v == '{' {
				k, err := dec.Token()
				if err != nil {
					return err
				}
				sub = k.(string)
				if path != "" {
					sub = path + "." + sub
				}
			}
			if err := flattenValue(dec, sub, out); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil {
			return err
		}
		if n == 0 && v == '[' {
			*out = append(*out, Field{path, "[]"})
		}
	case nil:
		*out = append(*out, Field{path, "null"})
	case string:
		*out = append(*out, Field{path, v})
	case json.Number:
		*out = append(*out, Field{path, v.String()})
	case bool:
		*out = append(*out, Field{path, strconv.FormatBool(v)})
	}
	return nil
}

// lookup returns the text of the field at path, and whether there is one.
func lookup(fields []Field, path string) (string, bool) {
	for _, f := range fields {
		if f.Path == path {
			return f.Text, true
		}
	}
	return "", false
}
