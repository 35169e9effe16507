package kube

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
	"mvdan.cc/sh/v3/syntax"
)

// hostile are values a user (or a script fed by one) may pass to any flag:
// line breaks that would add YAML documents, quotes and substitutions that
// would break or extend a shell line, and more.
var hostile = []string{
	"a\nb",
	"x\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: stolen}\nstringData: {token: x}",
	"x\r\nkind: Pod",
	"x\rkind: Pod",
	"x\u2028kind: Pod", "x\u2029y", "x\u0085y",
	"it's", `a"b`, `a\b`, "$(id)", "${HOME}", "`id`", "a;id", "a|id", "a&&id", "a>b",
	"'; kubectl delete namespace prod; echo '",
	"x' --overrides='{}",
	"a b", "a\tb", " a", "a ",
	"ünïcödé", "ｈｅｒｄｂｅｎｃｈ", "a\x00b", "a\x1bb", "\xff\xfe",
	"#", "a#b", "a: b", "{x: y}", "[a]", "*", "&a", "!!str", "-x", "--x", "-",
	strings.Repeat("a", 64), strings.Repeat("a", 300), strings.Repeat("a/", 5000),
}

// TestHostileValues: every value given to every flag of herdbench k8s is
// either refused (an error naming the flag, what is wrong, and a good
// value) or written where it cannot become anything else: the manifest is
// still exactly its documents (ConfigMap, claim, Job), the header only
// comments, each shell line in it one command whose words are the values
// as given, and the container's arguments free of Kubernetes' $(VAR)
// expansion.
func TestHostileValues(t *testing.T) {
	hex := strings.Repeat("0123456789abcdef", 4)
	flags := []struct {
		flag string
		set  func(*Options, string)
		good []string // accepted, beside whatever of hostile is
		bad  []string // refused, beside most of hostile
	}{
		{"--image", func(o *Options, v string) { o.Image = v },
			[]string{"herdbench", "registry.example/team/herdbench:v1.2", "registry.example:5000/herdbench:latest", "ghcr.io/herdbench/herdbench@sha256:" + hex,
				"ghcr.io/herdbench/herdbench:v1@sha256:" + hex, "localhost:5000/a__b/c-d.e:T_1", "[::1]:5000/herdbench:v1"},
			[]string{"Herdbench", "herdbench:", "herdbench:v1:v2", "/herdbench", "herdbench/", "herdbench@sha256:abc", ":v1", "herdbench:" + strings.Repeat("t", 129)}},
		{"--cpu", func(o *Options, v string) { o.CPU = v },
			[]string{"2", "1500m", "0.5", ".5", "1e3", "1E-1", "2k"},
			[]string{"0", "0m", "-1", "+1", "2 cores", "1,5", "1.5.1", "m", "2Ki ", "1x", "1e", "NaN"}},
		{"--memory", func(o *Options, v string) { o.Memory = v },
			[]string{"512Mi", "1Gi", "1e9", "1G", "1.5Gi"},
			[]string{"0", "0Gi", "1GB", "1gi", "Mi", "-1Gi", "1 Gi"}},
		{"--results-claim", func(o *Options, v string) { o.Claim, o.Existing = v, true },
			[]string{"team-results", "a", "team.results", "0"},
			[]string{"Team", "-a", "a-", "a_b", "a..b", ".a", strings.Repeat("a", 64)}},
		{"--token-secret", func(o *Options, v string) { o.TokenSecret = v },
			[]string{"herdbench-control-token", "tok.en"},
			[]string{"Token", "tok en", "tok_en"}},
		{"--target", func(o *Options, v string) { o.Target = v },
			[]string{"http://svc.ns:8090/", "https://svc.ns/path?q=1&r=2", "http://x/it's", "http://x/$(HERDBENCH_CONTROL_TOKEN)", "http://[::1]:8090/", "http://x/a;b"},
			[]string{"svc:8090", "ftp://x/", "http://", "http:///path", "http://user:pw@x/", "http://x/#frag", "http://x/a b", `http://x/a"b`, "http://x/`id`", "http://x/ü"}},
		{"--chaos-control", func(o *Options, v string) { o.ChaosControl = v },
			[]string{"http://chaos-proxy.staging.svc:8091", "http://10.0.0.1:8091/"},
			[]string{"https://p:8091", "http://p:8091/control", "http://p:8091?x=1", "p:8091"}},
	}
	// The scenario's name is no flag: it is never refused, only written
	// safely (the Job's name made of its letters, the header quoting it).
	flags = append(flags, struct {
		flag      string
		set       func(*Options, string)
		good, bad []string
	}{"scenario name", func(o *Options, v string) { o.Scenario = v }, hostile, nil})
	for _, f := range flags {
		values := append(append(append([]string{}, f.good...), f.bad...), hostile...)
		for _, v := range values {
			o := example(3, "http://chaos-proxy.staging.svc:8091")
			f.set(&o, v)
			b, err := Manifest(o)
			switch {
			case slices.Contains(f.good, v) && err != nil:
				t.Errorf("%s %q: %v, want it accepted", f.flag, v, err)
			case slices.Contains(f.bad, v) && err == nil:
				t.Errorf("%s %q: accepted, want it refused", f.flag, v)
			case err != nil:
				var p *Problem
				ps := o.Problems()
				if !errors.Is(err, ErrOptions) || len(ps) != 1 || !errors.As(ps[0], &p) || p.Flag != f.flag || p.Why == "" || p.Example == "" ||
					!strings.Contains(err.Error(), f.flag+" ") || !strings.Contains(err.Error(), "give e.g.") {
					t.Errorf("%s %q refused with %v (problems %v): want one problem naming the flag, what is wrong and an example", f.flag, v, err, ps)
				}
				if strings.ContainsAny(err.Error(), "\n\r") || !utf8Printable(err.Error()) {
					t.Errorf("%s %q: the error writes the value raw: %q", f.flag, v, err)
				}
				// The example is itself accepted.
				if ex := strings.Fields(p.Example)[0]; !strings.Contains(ex, "<") {
					good := example(3, "http://p:8091")
					f.set(&good, ex)
					if _, err := Manifest(good); err != nil {
						t.Errorf("%s: the example %q is refused: %v", f.flag, ex, err)
					}
				}
			default:
				checkManifest(t, f.flag+" "+fmt.Sprintf("%q", v), o, b)
			}
		}
	}
}

func utf8Printable(s string) bool {
	return !strings.ContainsFunc(s, func(r rune) bool { return r < ' ' || r > '~' })
}

// checkManifest checks an accepted manifest: exactly the documents
// expected, only comments before them, and the header's shell lines.
func checkManifest(t *testing.T, what string, o Options, b []byte) {
	t.Helper()
	head, _, ok := bytes.Cut(b, []byte("\n---\n"))
	if !ok {
		t.Fatalf("%s: no document", what)
	}
	var shell []string
	for _, l := range strings.Split(string(head), "\n") {
		if !strings.HasPrefix(l, "# ") || !utf8Printable(l) {
			t.Errorf("%s: header line %q is not a comment of printable characters", what, l)
		}
		if cmd, ok := strings.CutPrefix(l, "#   "); ok {
			shell = append(shell, cmd)
		}
	}
	var kinds []string
	var job struct {
		Kind string
		Spec struct {
			Template struct {
				Spec struct {
					Containers []struct {
						Image     string
						Args      []string
						Resources struct{ Requests, Limits map[string]string }
					}
					Volumes []struct {
						PersistentVolumeClaim *struct {
							ClaimName string `yaml:"claimName"`
						} `yaml:"persistentVolumeClaim"`
					}
				}
			}
		}
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: the manifest is not YAML: %v", what, err)
		}
		var k struct{ Kind string }
		if err := doc.Decode(&k); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		kinds = append(kinds, k.Kind)
		if k.Kind == "Job" {
			if err := doc.Decode(&job); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
		}
	}
	want := []string{"ConfigMap", "PersistentVolumeClaim", "Job"}
	if o.Existing {
		want = []string{"ConfigMap", "Job"}
	}
	if !slices.Equal(kinds, want) {
		t.Fatalf("%s: documents %q, want %q", what, kinds, want)
	}
	c := job.Spec.Template.Spec.Containers[0]
	if c.Image != o.Image || c.Resources.Limits["cpu"] != o.CPU || c.Resources.Requests["memory"] != o.Memory ||
		job.Spec.Template.Spec.Volumes[1].PersistentVolumeClaim.ClaimName != o.Claim {
		t.Errorf("%s: the Job's image %q, CPU %q, memory %q, claim %q", what, c.Image, c.Resources.Limits["cpu"], c.Resources.Requests["memory"], job.Spec.Template.Spec.Volumes[1].PersistentVolumeClaim.ClaimName)
	}
	for i, a := range c.Args {
		if strings.Contains(strings.ReplaceAll(a, "$$", ""), "$") && a != fmt.Sprintf("$(JOB_COMPLETION_INDEX)/%d", o.Shards) {
			t.Errorf("%s: argument %q has a $ that Kubernetes would expand", what, a)
		}
		if i > 0 && c.Args[i-1] == "--target" && strings.ReplaceAll(a, "$$", "$") != o.Target {
			t.Errorf("%s: --target %q in the Job, want %q", what, a, o.Target)
		}
	}
	if len(shell) != 3 {
		t.Fatalf("%s: %d shell lines in the header, want 3 (apply, wait, merge)", what, len(shell))
	}
	argv := shellArgv(t, what, shell[2])
	name := Name(o)
	wantArgv := []string{"kubectl", "run", name + "-merge", "--rm", "-i", "--restart=Never", "--image=" + o.Image}
	if len(argv) != len(wantArgv)+1 || !slices.Equal(argv[:len(wantArgv)], wantArgv) || !strings.HasPrefix(argv[len(wantArgv)], "--overrides=") {
		t.Fatalf("%s: the merge command's words are %q, want %q and --overrides", what, argv, wantArgv)
	}
	var pod struct {
		Spec struct {
			Containers []struct{ Image string }
			Volumes    []struct {
				PersistentVolumeClaim struct{ ClaimName string } `json:"persistentVolumeClaim"`
			}
		}
	}
	if err := json.Unmarshal([]byte(strings.TrimPrefix(argv[len(wantArgv)], "--overrides=")), &pod); err != nil ||
		pod.Spec.Containers[0].Image != o.Image || pod.Spec.Volumes[0].PersistentVolumeClaim.ClaimName != o.Claim {
		t.Errorf("%s: the merge pod's overrides %s (%v)", what, argv[len(wantArgv)], err)
	}
	for _, l := range shell[:2] {
		shellArgv(t, what, l)
	}
}

// shellArgv parses line as a POSIX shell would and returns its words: it
// must be one simple command whose words are literal (plain or in single
// quotes): no expansion, substitution, redirection or second command.
func shellArgv(t *testing.T, what, line string) []string {
	t.Helper()
	f, err := syntax.NewParser(syntax.Variant(syntax.LangPOSIX)).Parse(strings.NewReader(line), "")
	if err != nil {
		t.Fatalf("%s: shell line %s does not parse: %v", what, quote(line), err)
	}
	if len(f.Stmts) != 1 || f.Stmts[0].Background || len(f.Stmts[0].Redirs) > 0 {
		t.Fatalf("%s: shell line %s is not one command", what, quote(line))
	}
	call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Assigns) > 0 {
		t.Fatalf("%s: shell line %s is not a simple command", what, quote(line))
	}
	var argv []string
	for _, w := range call.Args {
		var b strings.Builder
		for _, p := range w.Parts {
			switch p := p.(type) {
			case *syntax.Lit:
				// Outside quotes a backslash escapes the next character.
				for i := 0; i < len(p.Value); i++ {
					if p.Value[i] == '\\' && i+1 < len(p.Value) {
						i++
					}
					b.WriteByte(p.Value[i])
				}
			case *syntax.SglQuoted:
				if p.Dollar {
					t.Fatalf("%s: shell line %s has a $'...' word", what, quote(line))
				}
				b.WriteString(p.Value)
			default:
				t.Fatalf("%s: shell line %s has a word the shell expands (%T)", what, quote(line), p)
			}
		}
		argv = append(argv, b.String())
	}
	return argv
}

// TestShellWords: what the header's shell lines are made of, read back by
// a shell's parser word for word.
func TestShellWords(t *testing.T) {
	words := append([]string{"kubectl", "--image=x", "--overrides={\"a\":\"it's\"}", "", "--", "--=", "a=b'c"}, hostile...)
	var keep []string
	for _, w := range words {
		// No shell word holds a NUL; the parser reads UTF-8 only, and
		// drops a carriage return.
		if !strings.ContainsAny(w, "\x00\r") && utf8.ValidString(w) {
			keep = append(keep, w)
		}
	}
	line := shellWords(keep...)
	if got := shellArgv(t, "shellWords", line); !slices.Equal(got, keep) {
		t.Errorf("shellWords(...) = %s, read back as %q", quote(line), got)
	}
}
