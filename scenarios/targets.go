package scenarios

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/herdbench/herdbench/clients"
)

// maxTargetsFile is the largest targets file read.
const maxTargetsFile = 16 << 20

// readTargets reads a vegeta targets file in its http format (vegeta's
// README, "http format"): targets apart, each a line "METHOD URL", then
// its headers ("Name: value"), then optionally "@file", its body, read
// relative to the targets file's folder; lines starting with # are
// comments. The URL's path and query are sent (joined to the target URL's
// base path); its host is not: the target URL alone decides where load
// goes. Its user and password become an Authorization: Basic header, as
// vegeta sends them. name is relative to dir.
func readTargets(name, dir string) ([]RequestFile, error) {
	p := name
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	fi, err := os.Stat(p)
	switch {
	case err != nil:
		return nil, fmt.Errorf("the targets file %s cannot be read (%v); write targets: file.txt, relative to the scenario's folder", name, err)
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("the targets file %s is not a regular file; write targets: file.txt, relative to the scenario's folder", name)
	case fi.Size() > maxTargetsFile:
		return nil, fmt.Errorf("the targets file %s has %d bytes; a targets file holds at most %d (its bodies are files of their own)", name, fi.Size(), maxTargetsFile)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("the targets file %s cannot be read (%v)", name, err)
	}
	base, err := filepath.Abs(filepath.Dir(p))
	if err != nil {
		return nil, err
	}
	var out []RequestFile
	var cur *RequestFile
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(text, "#"):
			continue
		case text == "":
			cur = nil
			continue
		case cur == nil || startsWithMethod(text):
			method, raw, ok := strings.Cut(text, " ")
			if !ok {
				return nil, fmt.Errorf("%s line %d: %q is not a target; write METHOD URL, e.g. GET http://localhost:8080/users/1", name, line, text)
			}
			u, err := url.Parse(strings.TrimSpace(raw))
			if err != nil || u.Host == "" {
				return nil, fmt.Errorf("%s line %d: %q is not an absolute URL; write e.g. http://localhost:8080/path", name, line, strings.TrimSpace(raw))
			}
			r := RequestFile{Method: method, Path: u.EscapedPath(), Headers: map[string]string{}}
			if r.Path == "" {
				r.Path = "/"
			}
			if u.RawQuery != "" {
				r.Path += "?" + u.RawQuery
			}
			// Braces in a vegeta target are literal: vegeta has no placeholders.
			r.Path = strings.ReplaceAll(r.Path, "{", "{{")
			if u.User != nil {
				pw, _ := u.User.Password()
				r.Headers["Authorization"] = "Basic " + base64.StdEncoding.EncodeToString([]byte(u.User.Username()+":"+pw))
			}
			out = append(out, r)
			cur = &out[len(out)-1]
		case strings.HasPrefix(text, "@"):
			b := strings.TrimPrefix(text, "@")
			if !filepath.IsAbs(b) {
				b = filepath.Join(base, b)
			}
			cur.Body = "@" + b
			cur = nil // the body ends the target
		default:
			k, v, ok := strings.Cut(text, ":")
			if !ok {
				return nil, fmt.Errorf("%s line %d: %q is not a header; write Name: value (or @file for the body, or an empty line before the next target)", name, line, text)
			}
			k, v = strings.TrimSpace(k), strings.ReplaceAll(strings.TrimSpace(v), "{", "{{")
			if old, dup := cur.Headers[k]; dup {
				v = old + ", " + v // repeated: one field, as HTTP combines them
			}
			cur.Headers[k] = v
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the targets file %s holds no target; write METHOD URL lines (vegeta's http format)", name)
	}
	return out, nil
}

// startsWithMethod reports whether a line starts a new target: in vegeta's
// format a target may follow the one before without an empty line.
func startsWithMethod(line string) bool {
	m, _, ok := strings.Cut(line, " ")
	return ok && slices.Contains(clients.Methods, m)
}
