// Package kube prints the Kubernetes manifest that runs a scenario's
// shards (herdbench k8s): an Indexed Job of N pods, one shard each (the
// index from JOB_COMPLETION_INDEX), all started for one instant T0, their
// results written to a shared volume, and the one command that merges them
// afterwards (herdbench merge). Kubernetes schedules, starts and stops the
// shards: herdbench has no coordinator of its own. The manifest is data
// (Manifest returns bytes); the command prints it.
//
// The manifest is checked offline by Kubernetes' own validation code in
// tools/k8scheck, and decoded strictly into Kubernetes' API types in
// tools/k8sschema (the check CI runs: it builds in a fraction of the
// time), modules of their own so that this one does not depend on
// Kubernetes.
package kube
