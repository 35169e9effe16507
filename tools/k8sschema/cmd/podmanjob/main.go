// Command podmanjob starts an Indexed Job's pods as podman containers, as
// a kubelet would start them: for each completion index, the container's
// image with its arguments expanded, the environment the Job sets (the
// completion index, the secrets it names), its user, read-only root and
// dropped capabilities, its ConfigMap written to files and mounted
// read-only, its claim as a shared folder. It writes, for each index K,
// DIR/pod-K.args (podman's arguments, NUL-separated) and DIR/pod-K.env
// (the environment, for --env-file), and prints nothing else; CI's
// .ci/containers runs them.
//
//	podmanjob -manifest job.yaml -dir DIR -network NET -ips 10.89.0.11,10.89.0.12 \
//	    -secret herdbench-control-token/token=VALUE
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/herdbench/herdbench/tools/k8sschema"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "podmanjob:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("podmanjob", flag.ContinueOnError)
	manifest := fs.String("manifest", "", "the manifest herdbench k8s printed")
	dir := fs.String("dir", "", "where the pods' files, folders and arguments go")
	network := fs.String("network", "", "the podman network every pod joins")
	ips := fs.String("ips", "", "each pod's address on it, comma-separated, one per completion index")
	owner := fs.Int("owner", 65532, "the UID and GID that own a claim's folder (the pod's fsGroup)")
	var secrets secretFlag
	fs.Var(&secrets, "secret", "NAME/KEY=VALUE: a Secret's value the Job's environment reads (repeatable)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *manifest == "" || *dir == "" || *network == "" {
		return errors.New("-manifest, -dir and -network are required")
	}
	data, err := os.ReadFile(*manifest)
	if err != nil {
		return err
	}
	pods, err := k8sschema.JobPods(data, secrets.m)
	if err != nil {
		return err
	}
	addr := strings.Split(*ips, ",")
	if len(addr) != len(pods) {
		return fmt.Errorf("-ips gives %d addresses for %d pods", len(addr), len(pods))
	}
	for i, p := range pods {
		argv, env, err := podman(p, *dir, *network, addr[i], *owner)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(*dir, fmt.Sprintf("pod-%d.args", p.Index)), []byte(strings.Join(argv, "\x00")+"\x00"), 0o600); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(*dir, fmt.Sprintf("pod-%d.env", p.Index)), []byte(env), 0o600); err != nil {
			return err
		}
	}
	return nil
}

// podman returns the arguments of podman run for p, and its environment
// file, after writing its ConfigMaps' files and making its claims'
// folders under dir.
func podman(p k8sschema.Pod, dir, network, ip string, owner int) ([]string, string, error) {
	envFile := filepath.Join(dir, fmt.Sprintf("pod-%d.env", p.Index))
	argv := []string{"run", "--name", fmt.Sprintf("herdbench-pod-%d", p.Index), "--network", network, "--ip", ip, "--env-file", envFile}
	if p.User != "" {
		argv = append(argv, "--user", p.User)
	}
	if p.ReadOnlyRoot {
		argv = append(argv, "--read-only")
	}
	if p.DropAll {
		argv = append(argv, "--cap-drop", "ALL")
	}
	if p.NoNewPrivs {
		argv = append(argv, "--security-opt", "no-new-privileges")
	}
	for _, m := range p.Mounts {
		host, err := volume(m, dir, owner)
		if err != nil {
			return nil, "", err
		}
		opt := host + ":" + m.Path
		if m.ReadOnly || m.Files != nil {
			opt += ":ro"
		}
		argv = append(argv, "-v", opt)
	}
	argv = append(argv, p.Image)
	argv = append(argv, p.Args...)
	var env strings.Builder
	for _, e := range p.Env {
		if strings.ContainsAny(e.Value, "\n") {
			return nil, "", fmt.Errorf("env %s: a value on more than one line", e.Name)
		}
		fmt.Fprintf(&env, "%s=%s\n", e.Name, e.Value)
	}
	return argv, env.String(), nil
}

// volume makes m's folder on the host under dir and returns its path: a
// ConfigMap's files (one folder per pod, as each kubelet projects its
// own), or a claim's folder that every pod shares.
func volume(m k8sschema.Mount, dir string, owner int) (string, error) {
	if m.Files == nil {
		host := filepath.Join(dir, "claim-"+m.Claim)
		if err := os.MkdirAll(host, 0o770); err != nil {
			return "", err
		}
		return host, os.Chown(host, owner, owner)
	}
	host, err := os.MkdirTemp(dir, "configmap-")
	if err != nil {
		return "", err
	}
	for name, content := range m.Files {
		if !filepath.IsLocal(name) {
			return "", fmt.Errorf("ConfigMap file %q is not a local path", name)
		}
		f := filepath.Join(host, name)
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(f, []byte(content), 0o644); err != nil {
			return "", err
		}
	}
	return host, os.Chmod(host, 0o755)
}

type secretFlag struct{ m map[string]map[string]string }

func (s *secretFlag) String() string { return "" }

func (s *secretFlag) Set(v string) error {
	ref, value, ok := strings.Cut(v, "=")
	name, key, ok2 := strings.Cut(ref, "/")
	if !ok || !ok2 {
		return errors.New("want NAME/KEY=VALUE")
	}
	if s.m == nil {
		s.m = map[string]map[string]string{}
	}
	if s.m[name] == nil {
		s.m[name] = map[string]string{}
	}
	s.m[name][key] = value
	return nil
}
