package k8sschema

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// completionIndex is the annotation an Indexed Job's controller sets on
// each pod, which a fieldRef may read.
const completionIndex = "metadata.annotations['batch.kubernetes.io/job-completion-index']"

// Pod is what a kubelet starts for one completion index of an Indexed
// Job's single container: its image, its arguments with $(VAR) expanded as
// Kubernetes expands them, its environment, user and mounts.
type Pod struct {
	Index int
	Image string
	Args  []string
	Env   []EnvVar
	// User is "UID:GID" from the pod's and the container's security context.
	User         string
	ReadOnlyRoot bool
	DropAll      bool // capabilities: drop ALL
	NoNewPrivs   bool // allowPrivilegeEscalation: false
	Mounts       []Mount
}

// EnvVar is one variable of a container's environment, resolved.
type EnvVar struct{ Name, Value string }

// Mount is one volume mounted into the container: a ConfigMap's files
// (Files: path inside the mount -> content) or a PersistentVolumeClaim
// (Claim: its name).
type Mount struct {
	Path     string
	ReadOnly bool
	Files    map[string]string
	Claim    string
}

// JobPods returns the pods an Indexed Job in manifest (a multi-document
// stream, as herdbench k8s prints it) starts, one per completion index,
// resolved against the stream's ConfigMaps and secrets (Secret name ->
// key -> value).
func JobPods(manifest []byte, secrets map[string]map[string]string) ([]Pod, error) {
	var job *batchv1.Job
	maps := map[string]*corev1.ConfigMap{}
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(manifest)))
	for {
		raw, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		var head struct {
			Kind string `json:"kind"`
		}
		if err := yaml.Unmarshal(raw, &head); err != nil {
			return nil, err
		}
		switch head.Kind {
		case "Job":
			job = &batchv1.Job{}
			if err := yaml.UnmarshalStrict(raw, job); err != nil {
				return nil, err
			}
		case "ConfigMap":
			cm := &corev1.ConfigMap{}
			if err := yaml.UnmarshalStrict(raw, cm); err != nil {
				return nil, err
			}
			maps[cm.Name] = cm
		}
	}
	if job == nil {
		return nil, errors.New("no Job in the manifest")
	}
	if job.Spec.CompletionMode == nil || *job.Spec.CompletionMode != batchv1.IndexedCompletion || job.Spec.Completions == nil {
		return nil, errors.New("the Job is not an Indexed Job with completions")
	}
	spec := job.Spec.Template.Spec
	if len(spec.Containers) != 1 {
		return nil, fmt.Errorf("the Job's pod has %d containers; want 1", len(spec.Containers))
	}
	var pods []Pod
	for i := range int(*job.Spec.Completions) {
		p, err := pod(spec, i, maps, secrets)
		if err != nil {
			return nil, fmt.Errorf("completion index %d: %w", i, err)
		}
		pods = append(pods, p)
	}
	return pods, nil
}

func pod(spec corev1.PodSpec, index int, maps map[string]*corev1.ConfigMap, secrets map[string]map[string]string) (Pod, error) {
	c := spec.Containers[0]
	p := Pod{Index: index, Image: c.Image}
	vars := map[string]string{}
	for _, e := range c.Env {
		v, err := envValue(e, index, secrets)
		if err != nil {
			return p, err
		}
		vars[e.Name] = v
		p.Env = append(p.Env, EnvVar{e.Name, v})
	}
	for _, a := range c.Args {
		p.Args = append(p.Args, Expand(a, vars))
	}
	uid, gid := int64(-1), int64(-1)
	if sc := spec.SecurityContext; sc != nil {
		if sc.RunAsUser != nil {
			uid = *sc.RunAsUser
		}
		if sc.RunAsGroup != nil {
			gid = *sc.RunAsGroup
		}
	}
	if sc := c.SecurityContext; sc != nil {
		if sc.RunAsUser != nil {
			uid = *sc.RunAsUser
		}
		if sc.RunAsGroup != nil {
			gid = *sc.RunAsGroup
		}
		p.ReadOnlyRoot = sc.ReadOnlyRootFilesystem != nil && *sc.ReadOnlyRootFilesystem
		p.NoNewPrivs = sc.AllowPrivilegeEscalation != nil && !*sc.AllowPrivilegeEscalation
		if sc.Capabilities != nil {
			for _, d := range sc.Capabilities.Drop {
				p.DropAll = p.DropAll || d == "ALL"
			}
		}
	}
	if uid >= 0 {
		p.User = fmt.Sprint(uid)
		if gid >= 0 {
			p.User += fmt.Sprintf(":%d", gid)
		}
	}
	for _, vm := range c.VolumeMounts {
		m, err := mount(spec, vm, maps)
		if err != nil {
			return p, err
		}
		p.Mounts = append(p.Mounts, m)
	}
	return p, nil
}

func envValue(e corev1.EnvVar, index int, secrets map[string]map[string]string) (string, error) {
	switch {
	case e.ValueFrom == nil:
		return e.Value, nil
	case e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == completionIndex:
		return fmt.Sprint(index), nil
	case e.ValueFrom.SecretKeyRef != nil:
		ref := e.ValueFrom.SecretKeyRef
		v, ok := secrets[ref.Name][ref.Key]
		if !ok {
			return "", fmt.Errorf("env %s: no secret %s key %s given", e.Name, ref.Name, ref.Key)
		}
		return v, nil
	}
	return "", fmt.Errorf("env %s: a source this check does not resolve", e.Name)
}

func mount(spec corev1.PodSpec, vm corev1.VolumeMount, maps map[string]*corev1.ConfigMap) (Mount, error) {
	m := Mount{Path: vm.MountPath, ReadOnly: vm.ReadOnly}
	for _, v := range spec.Volumes {
		if v.Name != vm.Name {
			continue
		}
		switch {
		case v.ConfigMap != nil:
			cm, ok := maps[v.ConfigMap.Name]
			if !ok {
				return m, fmt.Errorf("volume %s: no ConfigMap %s in the manifest", v.Name, v.ConfigMap.Name)
			}
			data := map[string]string{}
			for k, d := range cm.Data {
				data[k] = d
			}
			for k, d := range cm.BinaryData {
				data[k] = string(d)
			}
			m.Files = map[string]string{}
			if len(v.ConfigMap.Items) == 0 {
				m.Files = data
			}
			for _, it := range v.ConfigMap.Items {
				d, ok := data[it.Key]
				if !ok {
					return m, fmt.Errorf("volume %s: ConfigMap %s has no key %s", v.Name, cm.Name, it.Key)
				}
				m.Files[it.Path] = d
			}
			return m, nil
		case v.PersistentVolumeClaim != nil:
			m.Claim = v.PersistentVolumeClaim.ClaimName
			return m, nil
		}
		return m, fmt.Errorf("volume %s: a kind this check does not mount", v.Name)
	}
	return m, fmt.Errorf("volume mount %s: no such volume", vm.Name)
}

// Expand expands $(VAR) in s from vars as Kubernetes expands a
// container's args: a defined variable is replaced, an undefined one is
// left as written, and $$ is a literal $.
func Expand(s string, vars map[string]string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch s[i+1] {
		case '$':
			b.WriteByte('$')
			i++
			continue
		case '(':
			if end := strings.IndexByte(s[i+2:], ')'); end >= 0 {
				name := s[i+2 : i+2+end]
				if v, ok := vars[name]; ok {
					b.WriteString(v)
				} else {
					b.WriteString(s[i : i+3+end])
				}
				i += 2 + end
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
