//go:build linux && race

package cli

// raceBuild: built with the race detector (see hugePagesWanted).
const raceBuild = true
