//go:build !linux

package sim

// hugePages does nothing where the kernel takes no such advice.
func hugePages([]client) {}
