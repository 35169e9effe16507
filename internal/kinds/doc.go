// Package kinds is the registry behind herdbench's extension points: the
// fault kinds of package chaos and the retry budget, circuit breaker and
// throttle kinds of package clients.
//
// A Registry maps a kind's name to a constructor of its Spec: the kind's
// parameters in the shape a scenario writes them, which the scenario loader
// decodes in a second phase, once it has read the kind. Kinds register
// themselves from an init function in the file that defines them, so a new
// kind is that one file; registering a name twice panics, so two kinds can
// never silently shadow each other (as k6 registers its executors).
package kinds
