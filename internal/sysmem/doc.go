// Package sysmem reads how much memory this process may use: the machine's
// memory (MemTotal in /proc/meminfo), its cgroup's limit (memory.max in
// cgroup v2, memory.limit_in_bytes in v1), as in a container, or its
// address-space limit (RLIMIT_AS, ulimit -v) less what the Go runtime
// holds beyond its heap (GoReserve), whichever is smallest. herdbench refuses a run whose estimated memory exceeds a share
// of it before the run starts (engine.EstimateMemory, --max-memory), rather
// than being killed by the kernel halfway or taking the machine down.
package sysmem
