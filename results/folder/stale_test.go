package folder

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestStaleHiddenFoldersRemovedByTheNextWrite: the hidden folders that
// writers gone since left in a results folder are removed by the next
// Stage there, and nothing else is: not one whose writer still holds its
// lock, not one just made (its writer locks it at once), not an older
// herdbench's (no writer in its name) until a day has passed, not a
// link, not a results folder. They once stayed there for good, unseen.
func TestStaleHiddenFoldersRemovedByTheNextWrite(t *testing.T) {
	out := t.TempDir()
	now := time.Now()
	mk := func(name string, age time.Duration) string {
		t.Helper()
		dir := filepath.Join(out, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "timeline.csv"), []byte("strategy,t_s\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(dir, now.Add(-age), now.Add(-age)); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	gone := mk(".outage-20261201T100000Z.partial-p999999-11", 2*time.Minute)
	held := mk(".outage-20261201T100100Z.partial-p999998-12", 2*time.Minute)
	lock, err := lockDir(held) // its writer, alive: the lock is held
	if err != nil || lock == nil {
		t.Fatalf("lockDir: %v, %v", lock, err)
	}
	defer lock.Close()
	fresh := mk(".outage-20261201T100200Z.partial-p999997-13", time.Second)
	older := mk(".outage-20261201T100300Z.partial-4242", 2*time.Hour)
	oldest := mk(".outage-20261201T100400Z.partial-4343", 25*time.Hour)
	visible := mk("outage-20261201T100500Z", 48*time.Hour)
	target := mk("elsewhere", 48*time.Hour)
	link := filepath.Join(out, ".outage-20261201T100600Z.partial-p999996-14")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}

	st, err := Stage(filepath.Join(out, "outage-20261201T110000Z"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Discard()
	for dir, kept := range map[string]bool{gone: false, held: true, fresh: true, older: true, oldest: false, visible: true, target: true, link: true, st.Dir: true} {
		_, err := os.Lstat(dir)
		if got := err == nil; got != kept {
			t.Errorf("%s: kept %v, want %v", filepath.Base(dir), got, kept)
		}
	}
	if _, err := os.Stat(filepath.Join(target, "timeline.csv")); err != nil {
		t.Errorf("the folder a link points to lost its files: %v", err)
	}
	if !strings.Contains(filepath.Base(st.Dir), ".partial-p"+strconv.Itoa(os.Getpid())+"-") {
		t.Errorf("the hidden folder %s does not name its writer", filepath.Base(st.Dir))
	}
}

// TestKilledWritersFolderRemovedByTheNextWrite: a writer killed with
// SIGKILL while it writes (in a child process) leaves its hidden folder,
// whose lock the kernel drops with it: the next write into the same
// results folder, once the folder has been left for a minute, removes it.
func TestKilledWritersFolderRemovedByTheNextWrite(t *testing.T) {
	if os.Getenv("HERDBENCH_STAGE_CHILD") != "" {
		return // the child: TestStagingChild does its work
	}
	if testing.Short() {
		t.Skip("starts a child process")
	}
	out := t.TempDir()
	child := exec.Command(os.Args[0], "-test.run=^TestStagingChild$")
	child.Env = append(os.Environ(), "HERDBENCH_STAGE_CHILD="+filepath.Join(out, "merged-20261201T103000Z"))
	stdout, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = child.Process.Kill(); _ = child.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("the child said nothing: %v", err)
	}
	dir := strings.TrimSpace(strings.TrimPrefix(line, "staged "))
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("the child's hidden folder: %v", err)
	}
	// Alive, the writer keeps its folder, however old.
	old := time.Now().Add(-2 * staleAfter)
	if err := os.Chtimes(dir, old, old); err != nil {
		t.Fatal(err)
	}
	if n := removeStale(out, time.Now()); n != 0 {
		t.Fatalf("removed %d folders while their writer lives", n)
	}
	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()
	st, err := Stage(filepath.Join(out, "merged-20261201T103000Z"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Discard()
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("the killed writer's hidden folder %s is still there after the next write", dir)
	}
}

// TestStagingChild is the writer TestKilledWritersFolderRemovedByTheNextWrite
// kills: it stages a folder, writes into it, says where, and waits.
func TestStagingChild(t *testing.T) {
	dest := os.Getenv("HERDBENCH_STAGE_CHILD")
	if dest == "" {
		t.Skip("the child of TestKilledWritersFolderRemovedByTheNextWrite")
	}
	st, err := Stage(dest)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(st.Dir, "timeline.csv"), []byte("strategy,t_s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("staged " + st.Dir + "\n")
	time.Sleep(time.Minute) // killed long before
}
