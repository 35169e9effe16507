// Package sysmem reads how much memory this process may use: the machine's
// memory (MemTotal in /proc/meminfo), or its cgroup's limit (memory.max in
// cgroup v2, memory.limit_in_bytes in v1) when that is smaller, as in a
// container. herdbench refuses a run whose estimated memory exceeds a share
// of it before the run starts (engine.EstimateMemory, --max-memory), rather
// than being killed by the kernel halfway or taking the machine down.
package sysmem
