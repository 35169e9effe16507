package scenarios

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/internal/safefile"
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
// vegeta sends them. name is relative to the scenario's folder, and the
// file and its bodies are read from inside it (safefile's rule). A line
// that is wrong is named by its number, never quoted: a targets file
// holds tokens, and CI logs are public.
func (c *compiler) readTargets(name string) ([]RequestFile, error) {
	data, err := c.readFile(name, maxTargetsFile)
	switch {
	case errors.Is(err, safefile.ErrTooLarge):
		return nil, fmt.Errorf("the targets file %s is larger than %d bytes; a targets file holds at most that (its bodies are files of their own)", name, maxTargetsFile)
	case err != nil:
		return nil, fmt.Errorf("the targets file %s", fileProblem(err, "write targets: file.txt, a file relative to the scenario's folder"))
	}
	var out []RequestFile
	var cur *RequestFile
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		at := fmt.Sprintf("%s line %d", name, line)
		switch {
		case strings.HasPrefix(text, "#"):
			continue
		case text == "":
			cur = nil
			continue
		case cur == nil || startsWithMethod(text):
			r, err := targetLine(text, at)
			if err != nil {
				return nil, err
			}
			out = append(out, r)
			cur = &out[len(out)-1]
		case strings.HasPrefix(text, "@"):
			b := strings.TrimSpace(strings.TrimPrefix(text, "@"))
			if b == "" {
				return nil, fmt.Errorf("%s: @ names no file; write @file, the body's file relative to the targets file's folder", at)
			}
			if filepath.IsAbs(b) {
				return nil, fmt.Errorf("%s: the body file is an absolute path; write @file relative to the targets file's folder, inside the scenario's folder", at)
			}
			// Relative to the targets file's folder, then to the
			// scenario's: the folder's rule refuses one that climbs out.
			cur.Body = "@" + filepath.Join(filepath.Dir(name), b)
			cur = nil // the body ends the target
		default:
			if err := addHeader(cur, text, at); err != nil {
				return nil, err
			}
		}
	}
	if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		return nil, fmt.Errorf("%s line %d: longer than 1 MiB; a line holds one target, header or @file", name, line+1)
	} else if err != nil {
		return nil, fmt.Errorf("the targets file %s cannot be read: %v", name, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the targets file %s holds no target; write METHOD URL lines (vegeta's http format)", name)
	}
	return out, nil
}

// targetLine reads the line "METHOD URL" that starts a target, at is
// where it is; its errors never quote it.
func targetLine(text, at string) (RequestFile, error) {
	method, raw, ok := strings.Cut(text, " ")
	if !ok || !slices.Contains(clients.Methods, method) {
		return RequestFile{}, fmt.Errorf("%s: not a target; a target starts with its method (%s, in capitals) and URL, e.g. GET http://localhost:8080/users/1", at, validList(clients.Methods))
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" {
		return RequestFile{}, fmt.Errorf("%s: the target's URL is not an absolute URL; write e.g. %s http://localhost:8080/path", at, method)
	}
	r := RequestFile{Method: method, Path: u.EscapedPath(), Headers: map[string]string{}}
	if r.Path == "" {
		r.Path = "/"
	}
	if u.RawQuery != "" {
		r.Path += "?" + u.RawQuery
	}
	if pathProblem(r.Path) != "" {
		return RequestFile{}, fmt.Errorf("%s: the target's path or query holds a space, # or control character; escape them (%%20, %%23)", at)
	}
	// Braces in a vegeta target are literal: vegeta has no placeholders.
	r.Path = strings.ReplaceAll(r.Path, "{", "{{")
	if u.User != nil {
		pw, _ := u.User.Password()
		r.Headers["Authorization"] = "Basic " + base64.StdEncoding.EncodeToString([]byte(u.User.Username()+":"+pw))
	}
	return r, nil
}

// addHeader adds the header line text to r, at is where it is; its errors
// never quote it (a header line is most often a token).
func addHeader(r *RequestFile, text, at string) error {
	k, v, ok := strings.Cut(text, ":")
	if !ok {
		return fmt.Errorf("%s: not a header; write Name: value (or @file for the body, or an empty line before the next target)", at)
	}
	k, v = strings.TrimSpace(k), strings.ReplaceAll(strings.TrimSpace(v), "{", "{{")
	if !ValidHeaderName(k) {
		return fmt.Errorf("%s: the header's name is empty or holds a character a header name may not; names are letters, digits and !#$%%&'*+-.^_`|~", at)
	}
	if old, dup := r.Headers[k]; dup {
		v = old + ", " + v // repeated: one field, as HTTP combines them
	}
	r.Headers[k] = v
	return nil
}

// startsWithMethod reports whether a line starts a new target: in vegeta's
// format a target may follow the one before without an empty line.
func startsWithMethod(line string) bool {
	m, _, ok := strings.Cut(line, " ")
	return ok && slices.Contains(clients.Methods, m)
}
