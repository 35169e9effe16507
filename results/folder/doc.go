// Package folder is the results folder: the contract on disk between a run
// and what reads it afterwards (the report, merge, herdbench report).
//
// A folder is staged (folder.go): written into a hidden folder, report
// included, and renamed into place when complete (Stage, Staged.Publish).
// Write and WriteSweep put a Summary, its timelines and histogram logs in
// it, each file atomically (WriteFileAtomic). The formats and their readers
// are here: summary.json (EncodeSummary, its numbers at SignificantDigits;
// DecodeSummary), the timeline CSVs (EncodeTimeline, ReadTimeline, bounded
// by TimelineBounds), the tiers' timeline, sweep.csv, the per-cohort .hlog
// interval logs (EncodeHistogramLog, ScanHistogramLog, AddInterval) and a
// shard's send_lag.hlog and split.hlog. Readers of a folder use
// ReadRegular, OpenRegular and OpenBounded (regular.go): regular files only,
// of bounded size, never blocking on a FIFO. The names of folders
// (NameProblem, FolderIn, ChildIn) and the checks before a run
// (CheckWritable, CheckSpace) are here too. Nothing here prints.
package folder
