package scenarios

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// planted is a secret outside the scenario's folder (the first line of a
// shadow file, say): no plan, message or body may hold it.
const planted = "root:PLANTED-SECRET-3b9d:19000:0:99999:7:::"

// filesTree makes a scenario's folder scn/ beside out/, which holds the
// secret, with a body and a targets file inside and links out.
func filesTree(t *testing.T) (scn, secret string) {
	t.Helper()
	root := t.TempDir()
	scn, out := filepath.Join(root, "scn"), filepath.Join(root, "out")
	for _, d := range []string{filepath.Join(scn, "bodies"), out} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	secret = filepath.Join(out, "shadow")
	files := map[string]string{
		secret:                                  planted + "\n",
		filepath.Join(scn, "bodies", "a.json"):  `{"a":1}`,
		filepath.Join(scn, "targets.txt"):       "POST http://127.0.0.1:8000/x\n@bodies/a.json\n",
		filepath.Join(scn, "bodies", "t.txt"):   "PUT http://127.0.0.1:8000/y\n@a.json\n",
		filepath.Join(scn, "bodies", "out.txt"): "PUT http://127.0.0.1:8000/y\n@../../out/shadow\n",
	}
	for p, s := range files {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, to := range map[string]string{"link-out": secret, "link-proc": "/proc/self/environ", "link-in": "bodies/a.json"} {
		if err := os.Symlink(to, filepath.Join(scn, name)); err != nil {
			t.Fatal(err)
		}
	}
	return scn, secret
}

// openIn opens the scenario src as the file scenario.yaml of folder dir.
func openIn(t *testing.T, dir, src string) (*Opened, error) {
	t.Helper()
	p := filepath.Join(dir, "scenario.yaml")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return Open(p, Overrides{})
}

const filesHead = "name: f\nstrategies:\n  - name: a\n    backoff: full\n"

// refusedOutside checks that err refuses a file outside the folder,
// naming it and saying why, and that nothing of the secret shows.
func refusedOutside(t *testing.T, what string, op *Opened, err error, name string) {
	t.Helper()
	if err == nil {
		var bodies []string
		for _, r := range op.Plans[0].Strategies[0].Requests.Requests {
			bodies = append(bodies, string(r.Body))
		}
		t.Fatalf("%s: accepted; bodies %q", what, bodies)
	}
	msg := err.Error()
	outside := strings.Contains(msg, "is an absolute path") || strings.Contains(msg, "climbs out of the folder") || strings.Contains(msg, "leads out of the folder")
	if !strings.Contains(msg, name) || !outside {
		t.Errorf("%s: %v; want the file %s named and refused as outside the folder", what, err, name)
	}
	if strings.Contains(msg, "PLANTED-SECRET") || strings.Contains(msg, "PATH=") {
		t.Errorf("%s quotes what it read: %v", what, err)
	}
}

// TestBodyFileOutsideTheFolderIsNeverSent: a body "@file" is relative to
// the scenario's folder and inside it. "@../../../../etc/shadow", an
// absolute path or a link out once validated and were sent as the body of
// every request.
func TestBodyFileOutsideTheFolderIsNeverSent(t *testing.T) {
	scn, secret := filesTree(t)
	climb := strings.Repeat("../", strings.Count(scn, "/")) + strings.TrimPrefix(secret, "/")
	for _, name := range []string{climb, "../out/shadow", secret, "/proc/self/environ", "link-out", "link-proc", "bodies/../../out/shadow"} {
		src := filesHead + "requests:\n  - method: POST\n    path: /x\n    body: \"@" + name + "\"\n"
		op, err := openIn(t, scn, src)
		refusedOutside(t, "body @"+name, op, err, name)
	}
	// Inside, through a link that stays inside, it is read.
	op, err := openIn(t, scn, filesHead+"requests:\n  - method: POST\n    path: /x\n    body: \"@link-in\"\n")
	if err != nil {
		t.Fatal(err)
	}
	if b := op.Plans[0].Strategies[0].Requests.Requests[0].Body; string(b) != `{"a":1}` {
		t.Errorf("a link inside the folder: body %q", b)
	}
}

// TestValidateNeverQuotesAFileOutsideTheFolder: a targets file is
// relative to the scenario's folder and inside it. "targets:
// /proc/self/environ" once made validate print the process's environment
// (every CI secret) into its error, and "/etc/shadow" its first line.
func TestValidateNeverQuotesAFileOutsideTheFolder(t *testing.T) {
	scn, secret := filesTree(t)
	for _, name := range []string{"/proc/self/environ", secret, "../out/shadow", "link-out", "link-proc"} {
		op, err := openIn(t, scn, filesHead+"targets: "+name+"\n")
		refusedOutside(t, "targets: "+name, op, err, name)
	}
	// A targets file's body is relative to its folder, and inside the
	// scenario's.
	op, err := openIn(t, scn, filesHead+"targets: bodies/out.txt\n")
	refusedOutside(t, "a targets file's body ../../out/shadow", op, err, "out/shadow")
	op, err = openIn(t, scn, filesHead+"targets: bodies/t.txt\n")
	if err != nil {
		t.Fatal(err)
	}
	if b := op.Plans[0].Strategies[0].Requests.Requests[0].Body; string(b) != `{"a":1}` {
		t.Errorf("a targets file's body beside it: %q", b)
	}
}

// TestTargetsFileLineIsNeverQuoted: a malformed line of a targets file is
// reported by the file's name and the line's number, never quoted: a
// header line is most often a token, and it once went whole into CI's log.
func TestTargetsFileLineIsNeverQuoted(t *testing.T) {
	const token = "eyJhbGciOiJTOKEN-SECRET"
	for _, c := range []struct {
		name, file string
		line       int
	}{
		{"a header without a colon", "GET http://127.0.0.1:8000/x\nAuthorization Bearer " + token + "\n", 2},
		{"a header name with a space", "GET http://127.0.0.1:8000/x\nBearer " + token + ": x\n", 2},
		{"a header before any target", "Authorization: Bearer " + token + "\n", 1},
		{"a URL that is not absolute", "GET http//user:" + token + "@host/x\n", 1},
		{"a method in lower case", "get http://u:" + token + "@127.0.0.1/x\n", 1},
		{"a query with a space", "GET http://127.0.0.1:8000/x?token=" + token + " y\n", 1},
		{"a target without a URL", token + "\n", 1},
	} {
		scn := t.TempDir()
		if err := os.WriteFile(filepath.Join(scn, "t.txt"), []byte(c.file), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := openIn(t, scn, filesHead+"targets: t.txt\n")
		want := "t.txt line " + string(rune('0'+c.line))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want %q", c.name, err, want)
		}
		if err != nil && strings.Contains(err.Error(), "SECRET") {
			t.Errorf("%s: the line is quoted: %v", c.name, err)
		}
	}
}

// TestBuiltinNamesNoFileOnDisk: a built-in scenario's folder is the one
// it ships in, inside the binary: a file it is made to name (--set
// targets=...) is read from there under the same rule, never from the
// working folder or anywhere else on disk.
func TestBuiltinNamesNoFileOnDisk(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "targets.txt"), []byte("GET http://127.0.0.1:8000/x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for name, want := range map[string]string{
		"targets.txt":        "targets.txt is not in the built-in scenarios",
		"/proc/self/environ": "is an absolute path",
		"../go.mod":          "climbs out",
		"outage.yaml":        "outage.yaml line 1: not a target", // the embedded file, read as targets
	} {
		_, err := Open("outage", Overrides{Set: []Axis{{Path: "targets", Values: []string{name}, Origin: "--set"}}})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("outage with --set targets=%s: %v; want %q", name, err, want)
		}
	}
}
