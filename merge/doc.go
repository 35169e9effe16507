// Package merge combines the results folders of a run's shards into the
// run's results (herdbench merge).
//
// A run split with herdbench scenario --shard K/N runs, in each of N
// processes, client i of every cohort when i mod N is K (clients.Part),
// from one agreed start T0, and writes a results folder marked as shard K
// of N (results.ShardInfo). Folders reads those folders back and checks
// that they are one run's, every shard once: the same scenario (name and
// scenario.yaml), seed, T0 and N, no shard missing or twice, and clocks
// that agreed (an offset above results.MaxClockRefuse is refused, above
// results.MaxClockWarn warned of, naming the shard). It then adds the
// shards' 10 ms timelines bucket by bucket and their HdrHistogram logs
// interval by interval, restores a recorder from the sums
// (results.Restore) and computes every figure from it (results.MergeRun):
// nothing is averaged, so a percentile or the herd factor of the merged
// run is the one the whole run would have had. In virtual time, with
// clients that do not interact, the merge of N shards is the single run
// exactly, cell for cell (the package's tests).
//
// The caller (the CLI) checks the thresholds the shards deferred and
// writes the merged results folder as any run's.
package merge
