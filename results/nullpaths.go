package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// nullPaths returns the JSON object data with the values at the given
// dotted paths replaced by null, every other byte of meaning (keys, their
// order, values) kept: a recording's unmeasured figures stay in their
// places in summary.json, written as null.
func nullPaths(data []byte, paths []string) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var out bytes.Buffer
	if err := copyValue(dec, &out, "", paths); err != nil {
		return nil, fmt.Errorf("results: writing null figures: %w", err)
	}
	return out.Bytes(), nil
}

// copyValue copies the next JSON value from dec to out; path is its dotted
// path, and the value is written as null when paths holds it.
func copyValue(dec *json.Decoder, out *bytes.Buffer, path string, paths []string) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	null := slices.Contains(paths, path)
	switch t := tok.(type) {
	case json.Delim:
		if null {
			out.WriteString("null")
			return skipRest(dec)
		}
		switch t {
		case '{':
			out.WriteByte('{')
			for i := 0; dec.More(); i++ {
				k, err := dec.Token()
				if err != nil {
					return err
				}
				key, _ := k.(string)
				if i > 0 {
					out.WriteByte(',')
				}
				kb, _ := json.Marshal(key)
				out.Write(kb)
				out.WriteByte(':')
				sub := key
				if path != "" {
					sub = path + "." + key
				}
				if err := copyValue(dec, out, sub, paths); err != nil {
					return err
				}
			}
			out.WriteByte('}')
		case '[':
			out.WriteByte('[')
			for i := 0; dec.More(); i++ {
				if i > 0 {
					out.WriteByte(',')
				}
				if err := copyValue(dec, out, path+"[]", paths); err != nil {
					return err
				}
			}
			out.WriteByte(']')
		}
		_, err := dec.Token() // the closing delimiter
		return err
	default:
		if null {
			out.WriteString("null")
			return nil
		}
		b, err := json.Marshal(t)
		if err != nil {
			return err
		}
		out.Write(b)
		return nil
	}
}

// skipRest skips what is left of an object or array whose opening
// delimiter has been read.
func skipRest(dec *json.Decoder) error {
	for depth := 1; depth > 0; {
		tok, err := dec.Token()
		if err == io.EOF {
			return io.ErrUnexpectedEOF
		}
		if err != nil {
			return err
		}
		if d, ok := tok.(json.Delim); ok {
			if strings.ContainsRune("{[", rune(d)) {
				depth++
			} else {
				depth--
			}
		}
	}
	return nil
}
