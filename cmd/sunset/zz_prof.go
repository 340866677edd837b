package main

import (
	"os"
	"runtime/pprof"
)

func init() {
	if p := os.Getenv("ZZ_PROF"); p != "" {
		f, _ := os.Create(p)
		pprof.StartCPUProfile(f)
		zzStop = func() { pprof.StopCPUProfile(); f.Close() }
	}
}

var zzStop = func() {}
