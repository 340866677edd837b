//go:build linux && !race

package hugeheap

// raceBuild: built with the race detector (see hugePagesWanted).
const raceBuild = false
