// Command k8scheck validates Kubernetes manifests offline with the API
// server's own code: each document of the YAML files named (or of standard
// input) is decoded strictly (an unknown field is an error), defaulted and
// converted as the API server does, and validated by Kubernetes' own
// validation for its kind. A Job goes through the same steps as a create
// request (the job registry's PrepareForCreate, which generates the
// selector and the labels, then its Validate). It knows the kinds that
// herdbench k8s prints: Job, ConfigMap, PersistentVolumeClaim.
//
// Usage:
//
//	herdbench k8s outage --shards 3 --target http://proxy:8090/ | go run ./tools/k8scheck
//	go run ./tools/k8scheck manifest.yaml ...
//
// It prints every problem, with the document and the field path, and exits
// 1 if there is any, 2 if a file cannot be read.
//
// It is its own Go module, so that herdbench's module does not depend on
// Kubernetes: building it from cold takes minutes (8 min 46 s measured on
// 2 busy cores), which is why CI runs tools/k8sschema instead.
package main

import (
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	type input struct {
		name string
		data []byte
	}
	var inputs []input
	if len(args) == 0 {
		b, err := io.ReadAll(stdin)
		if err != nil {
			fmt.Fprintln(stderr, "k8scheck: reading standard input:", err)
			return 2
		}
		inputs = append(inputs, input{"<stdin>", b})
	}
	for _, a := range args {
		if a == "-h" || a == "--help" {
			fmt.Fprintln(stdout, "Usage: k8scheck [FILE...]\n\nValidates the Job, ConfigMap and PersistentVolumeClaim documents of the YAML files (or of standard input) with Kubernetes' own validation code, offline.")
			return 0
		}
		b, err := os.ReadFile(a)
		if err != nil {
			fmt.Fprintln(stderr, "k8scheck:", err)
			return 2
		}
		inputs = append(inputs, input{a, b})
	}
	bad := 0
	for _, in := range inputs {
		results, err := Check(in.data)
		if err != nil {
			fmt.Fprintf(stderr, "k8scheck: %s: %v\n", in.name, err)
			bad++
			continue
		}
		for _, r := range results {
			if len(r.Problems) == 0 {
				fmt.Fprintf(stdout, "%s: %s %s: valid\n", in.name, r.Kind, r.Name)
				continue
			}
			bad++
			for _, p := range r.Problems {
				fmt.Fprintf(stdout, "%s: %s %s (document %d): %s\n", in.name, r.Kind, r.Name, r.Doc, p)
			}
		}
	}
	if bad > 0 {
		return 1
	}
	return 0
}
