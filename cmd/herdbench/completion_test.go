package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/herdbench/herdbench/recording"
	"github.com/spf13/pflag"
)

func completionScript(t *testing.T, shell string) string {
	t.Helper()
	var stdout, stderr syncBuffer
	if code := run(context.Background(), []string{"completion", shell}, &stdout, &stderr); code != exitOK {
		t.Fatalf("herdbench completion %s: exit %d: %s", shell, code, stderr.String())
	}
	file := filepath.Join(t.TempDir(), "herdbench."+shell)
	if err := os.WriteFile(file, []byte(stdout.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// shell returns the path of a shell, or skips (fails in CI, which installs
// bash, zsh and fish).
func shell(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s not found: CI installs it to test herdbench completion %s", name, name)
		}
		t.Skipf("%s not installed", name)
	}
	return p
}

// Every flag of every command is offered, as the command defines it: the
// script is read from the FlagSets, so a flag added later is completed
// too (this test asks for each).
func TestCompletionCoversEveryFlag(t *testing.T) {
	for _, c := range commands {
		fs := flagsOf(c.name)
		switch c.name {
		case "version", "help", "completion":
			if fs != nil {
				t.Errorf("%s: flags %v", c.name, fs)
			}
			continue
		}
		if fs == nil {
			t.Fatalf("%s: no FlagSet captured (does it call parseFlags first?)", c.name)
		}
		if fs.Name() != c.name {
			t.Errorf("the FlagSet of %s is named %s", c.name, fs.Name())
		}
	}
	bash := completionScript(t, "bash")
	data, _ := os.ReadFile(bash)
	for _, c := range commands {
		for _, f := range flagList(flagsOf(c.name)) {
			if !strings.Contains(string(data), "--"+f.Name) {
				t.Errorf("the bash script lacks %s --%s", c.name, f.Name)
			}
		}
	}
}

// complete runs the bash script's function on the words typed so far
// (the last one being completed) and returns what it offers.
func bashComplete(t *testing.T, script string, words ...string) []string {
	t.Helper()
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = "'" + w + "'"
	}
	cmd := exec.Command(shell(t, "bash"), "-c", `source "$1"; COMP_WORDS=(`+strings.Join(quoted, " ")+`); COMP_CWORD=$((${#COMP_WORDS[@]}-1)); _herdbench; printf '%s\n' "${COMPREPLY[@]}"`, "bash", script)
	cmd.Dir = t.TempDir()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, out)
	}
	return strings.Fields(string(out))
}

func TestBashCompletion(t *testing.T) {
	script := completionScript(t, "bash")
	for _, c := range []struct {
		words []string
		want  []string
	}{
		{[]string{"herdbench", "sc"}, []string{"scenario"}},
		{[]string{"herdbench", "scenario", "out"}, []string{"outage"}},
		{[]string{"herdbench", "run", "--ju"}, []string{"--junit"}},
		{[]string{"herdbench", "scenario", "--si"}, []string{"--sim"}},
		{[]string{"herdbench", "proxy", "--ups"}, []string{"--upstream", "--upstream-protocol"}},
		{[]string{"herdbench", "completion", ""}, []string{"bash", "fish", "zsh"}},
		{[]string{"herdbench", "help", "mer"}, []string{"merge"}},
		{[]string{"herdbench", "scenario", "--seed", ""}, nil},
		{[]string{"herdbench", "scenario", "--cohorts", ""}, []string{"apart", "auto", "together"}},
		{[]string{"herdbench", "scenario", "--cohorts", "ap"}, []string{"apart"}},
		{[]string{"herdbench", "proxy", "--cohort-by", "u"}, []string{"user-agent"}},
	} {
		got := bashComplete(t, script, c.words...)
		slices.Sort(got)
		if !slices.Equal(got, c.want) {
			t.Errorf("%q: offered %q, want %q", c.words, got, c.want)
		}
	}
}

func TestFishCompletion(t *testing.T) {
	fish := shell(t, "fish")
	script := completionScript(t, "fish")
	for _, c := range []struct{ line, want string }{
		{"herdbench scen", "scenario\trun a scenario and compare its strategies"},
		{"herdbench scenario --ju", "--junit\t"},
		{"herdbench scenario out", "outage\tbuilt-in scenario"},
		{"herdbench completion z", "zsh"},
		{"herdbench scenario --cohorts to", "together"},
	} {
		out, err := exec.Command(fish, "--no-config", "-c", `function herdbench; end; source $argv[1]; complete -C"$argv[2]"`, script, c.line).CombinedOutput()
		if err != nil {
			t.Fatalf("fish: %v\n%s", err, out)
		}
		if !strings.Contains(string(out), c.want) {
			t.Errorf("%q: fish offered\n%s\nwant a line starting %q", c.line, out, c.want)
		}
	}
}

func TestZshCompletionLoads(t *testing.T) {
	zsh := shell(t, "zsh")
	script := completionScript(t, "zsh")
	if out, err := exec.Command(zsh, "-n", script).CombinedOutput(); err != nil {
		t.Fatalf("zsh -n: %v\n%s", err, out)
	}
	out, err := exec.Command(zsh, "-f", "-c", `autoload -U compinit && compinit -u -D && source "$1" && print -r -- $_comps[herdbench]`, "zsh", script).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "_herdbench" {
		t.Errorf("zsh: sourcing the script does not register _herdbench for herdbench: %v\n%s", err, out)
	}
}

// Every value the scripts offer for a flag is one its command accepts, and
// a word that is not one is refused: the choices cannot drift from the
// parsers.
func TestCompletionChoicesAreAccepted(t *testing.T) {
	for _, v := range flagChoices["cohorts"] {
		f := &scenarioFlags{cohorts: v, runs: 1, slow: slowMotionFlag{k: 1}}
		if msg := f.check(pflag.NewFlagSet("scenario", pflag.ContinueOnError)); msg != "" {
			t.Errorf("--cohorts %s: %s", v, msg)
		}
	}
	if msg := (&scenarioFlags{cohorts: "sideways", runs: 1, slow: slowMotionFlag{k: 1}}).check(pflag.NewFlagSet("scenario", pflag.ContinueOnError)); msg == "" {
		t.Error("--cohorts sideways accepted")
	}
	for _, v := range flagChoices["cohort-by"] {
		if v == "header:" {
			v += "X-Client"
		}
		if _, err := recording.ParseCohortBy(v); err != nil {
			t.Errorf("--cohort-by %s: %v", v, err)
		}
	}
}

func TestCompletionRefusesAnUnknownShell(t *testing.T) {
	var stdout, stderr syncBuffer
	if code := run(context.Background(), []string{"completion", "powershell"}, &stdout, &stderr); code != exitUsage || !strings.Contains(stderr.String(), "bash, zsh or fish") {
		t.Errorf("exit %d: %s", code, stderr.String())
	}
}

func TestVersionFromTheBuildInfo(t *testing.T) {
	for _, c := range []struct {
		bi   debug.BuildInfo
		want string
	}{
		{debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "v1.2.3"},
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "v0.1.0-dev"},
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "b1ff60d0123456789abc"}}}, "v0.1.0-dev+b1ff60d01234"},
		{debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "true"}}}, "v0.1.0-dev+abc.dirty"},
	} {
		if got := versionOf(&c.bi); got != c.want {
			t.Errorf("%+v: %q, want %q", c.bi, got, c.want)
		}
	}
}
