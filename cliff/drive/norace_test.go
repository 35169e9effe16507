//go:build !race

package drive

const underRace = false
