// Package k8sschema checks Kubernetes manifests against the API's own Go
// types, offline and quickly: every document of a YAML stream is decoded
// strictly (an unknown or misspelt field, a value of the wrong type or a
// quantity that does not parse is an error) into k8s.io/api's type for its
// kind. It knows the kinds herdbench k8s prints: Job, ConfigMap,
// PersistentVolumeClaim.
//
// It is the check CI runs on herdbench k8s's manifests. tools/k8scheck
// goes further (the API server's defaulting and validation of a create
// request, by Kubernetes' own code) but takes minutes to build from cold,
// more than CI's budget; this one builds in a fraction of that. Both are
// Go modules of their own, so that herdbench's module does not depend on
// Kubernetes.
package k8sschema
