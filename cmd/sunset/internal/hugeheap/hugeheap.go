// Package hugeheap asks the kernel for transparent huge pages for the heap of `sunset
// check`, from the start of the process. A check lives a fraction of a second and allocates
// as it starts and as it parses, so each page of the heap it grows into costs a page fault,
// and on a virtual machine a fault is dear (18 microseconds per 4 KiB page on the machine
// the benchmarks run on); with a huge page one fault covers 2 MiB. Only the check command
// asks: a scan or an apply lives for minutes, its memory is measured on small pages, and
// its time is the API's.
package hugeheap

import "os"

// command is the command whose heap asks for huge pages.
const command = "check"

// init asks when the process runs the check command (`sunset check ...`: the command has no
// alias and sunset no global flag before it but --help and --version). It is an init, not
// part of the command, because packages initialised after this one allocate 3 MB before
// main runs (the OpenAPI validator's JSON Schema drafts, protobuf descriptors, the catalog):
// Go initialises packages in the order of their import paths as their imports allow, and
// this one imports only the standard library.
func init() {
	if runsCommand(os.Args) {
		prefer(os.Getenv)
	}
}

// runsCommand reports whether a process started with args runs command.
func runsCommand(args []string) bool { return len(args) > 1 && args[1] == command }
