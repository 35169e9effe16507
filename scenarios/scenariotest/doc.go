// Package scenariotest is for tests: a plan from a scenario written inline,
// the helper every package's tests that run a plan share.
package scenariotest
