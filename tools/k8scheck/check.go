package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/batch"
	_ "k8s.io/kubernetes/pkg/apis/batch/install"
	"k8s.io/kubernetes/pkg/apis/core"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	corevalidation "k8s.io/kubernetes/pkg/apis/core/validation"
	jobregistry "k8s.io/kubernetes/pkg/registry/batch/job"
	"sigs.k8s.io/yaml"
)

// Result is one document's verdict.
type Result struct {
	Doc      int // from 1
	Kind     string
	Name     string
	Problems []string // none: valid
}

// Check validates every document of a multi-document YAML stream.
func Check(data []byte) ([]Result, error) {
	r := utilyaml.NewYAMLReader(bufioReader(data))
	var out []Result
	for doc := 1; ; doc++ {
		raw, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return out, fmt.Errorf("document %d: %w", doc, err)
		}
		if len(bytes.TrimSpace(stripComments(raw))) == 0 {
			doc--
			continue
		}
		out = append(out, checkDoc(doc, raw))
	}
	if len(out) == 0 {
		return nil, errors.New("no documents")
	}
	return out, nil
}

func checkDoc(doc int, raw []byte) Result {
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	res := Result{Doc: doc}
	if err := yaml.Unmarshal(raw, &head); err != nil {
		res.Problems = []string{err.Error()}
		return res
	}
	res.Kind, res.Name = head.Kind, head.Metadata.Name
	problem := func(err error) Result {
		res.Problems = append(res.Problems, err.Error())
		return res
	}
	switch head.APIVersion + " " + head.Kind {
	case "batch/v1 Job":
		var v batchv1.Job
		if err := yaml.UnmarshalStrict(raw, &v); err != nil {
			return problem(err)
		}
		var in batch.Job
		if err := internal(&v, &in); err != nil {
			return problem(err)
		}
		// What the API server does with a create request: prepare (a
		// generated selector and labels), then validate.
		ctx := context.Background()
		in.UID = "00000000-0000-0000-0000-000000000000"
		jobregistry.Strategy.PrepareForCreate(ctx, &in)
		for _, e := range jobregistry.Strategy.Validate(ctx, &in) {
			res.Problems = append(res.Problems, e.Error())
		}
	case "v1 ConfigMap":
		var v corev1.ConfigMap
		if err := yaml.UnmarshalStrict(raw, &v); err != nil {
			return problem(err)
		}
		var in core.ConfigMap
		if err := internal(&v, &in); err != nil {
			return problem(err)
		}
		for _, e := range corevalidation.ValidateConfigMap(&in) {
			res.Problems = append(res.Problems, e.Error())
		}
	case "v1 PersistentVolumeClaim":
		var v corev1.PersistentVolumeClaim
		if err := yaml.UnmarshalStrict(raw, &v); err != nil {
			return problem(err)
		}
		var in core.PersistentVolumeClaim
		if err := internal(&v, &in); err != nil {
			return problem(err)
		}
		for _, e := range corevalidation.ValidatePersistentVolumeClaim(&in, corevalidation.ValidationOptionsForPersistentVolumeClaimCreate()) {
			res.Problems = append(res.Problems, e.Error())
		}
	default:
		return problem(fmt.Errorf("apiVersion %q kind %q: not a kind this checker knows (batch/v1 Job, v1 ConfigMap, v1 PersistentVolumeClaim)", head.APIVersion, head.Kind))
	}
	return res
}

// internal defaults the versioned object v as the API server does and
// converts it to the internal type the validation takes. An object without
// a namespace gets "default", as a request to the API server gets kubectl's
// current namespace.
func internal(v, in runtime.Object) error {
	if m, ok := v.(metav1.Object); ok && m.GetNamespace() == "" {
		m.SetNamespace("default")
	}
	legacyscheme.Scheme.Default(v)
	return legacyscheme.Scheme.Convert(v, in, nil)
}
