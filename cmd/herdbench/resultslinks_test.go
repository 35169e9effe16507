package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// planted is a secret outside every folder herdbench is given: no output
// may hold it.
const planted = "PLANTED-SECRET-51c2"

// plantSecret writes a file holding the secret, in a folder of its own.
func plantSecret(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "credentials")
	if err := os.WriteFile(p, []byte(planted+",t_s,ok\n[default]\naws_secret_access_key = "+planted+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestReportAndMergeFollowNoLink: a shared results folder whose
// scenario.yaml linked to the reader's own ~/.aws/credentials had it
// embedded in report.html ("The scenario as run"), and merge copied it
// into the merged folder; a timeline.csv so linked had its first line
// quoted in the error. A link in a results folder is now refused, exit 1,
// and nothing of the file shows.
func TestReportAndMergeFollowNoLink(t *testing.T) {
	secret := plantSecret(t)
	for _, name := range []string{"scenario.yaml", "timeline.csv"} {
		dir := savedRun(t, filepath.Join(t.TempDir(), "tiny-20260301T120000Z"))
		replaceWithLink(t, filepath.Join(dir, name), secret)
		code, stdout, stderr := runCLI(t, "report", dir, "--no-png")
		page, _ := os.ReadFile(filepath.Join(dir, "report.html"))
		if code != exitFailed || !strings.Contains(stderr, name+" is a symbolic link") || strings.Contains(stdout+stderr+string(page), planted) {
			t.Errorf("report with %s linked out: exit %d, stderr %q, the secret in the page: %v; want 1, refused, nowhere",
				name, code, stderr, strings.Contains(string(page), planted))
		}
	}
	dir := shardFolders(t, mergeableNoGate, 2)
	shards, _ := os.ReadDir(dir)
	for _, s := range shards {
		replaceWithLink(t, filepath.Join(dir, s.Name(), "scenario.yaml"), secret)
	}
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, "merge", dir, "--out", out, "--no-png", "-q")
	if code != exitFailed || !strings.Contains(stderr, "scenario.yaml is a symbolic link") || strings.Contains(stdout+stderr, planted) {
		t.Errorf("merge with scenario.yaml linked out: exit %d, stderr %q; want 1 and refused", code, stderr)
	}
	_ = filepath.Walk(out, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), planted) {
				t.Errorf("merge wrote the secret into %s", p)
			}
		}
		return nil
	})
}

// mergeableNoGate is mergeable without a threshold: the shards' merge
// succeeds unless a file is refused.
var mergeableNoGate = strings.Replace(mergeable, "thresholds:\n  - %s\n", "", 1)

func replaceWithLink(t *testing.T, path, to string) {
	t.Helper()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(to, path); err != nil {
		t.Fatal(err)
	}
}
