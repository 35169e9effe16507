// Package resultstest holds the recordings the tests of results and of
// its subpackages share: a recorder fed from a fixed stream (Record), a
// run of two cohorts in waves and spread out (Fixture), one cohort of a
// chain of tiers (ChainFixture) and a summary to check thresholds on
// (ThresholdSummary). It is imported by tests only.
package resultstest
