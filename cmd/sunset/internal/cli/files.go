package cli

import (
	"fmt"
	"io"

	"github.com/sunsetscan/sunset/scanner/safefile"
)

// Bounds of the files the commands read (safefile refuses larger ones, and anything that is
// not a regular file, naming it). Inputs that only sunset writes (snapshots, reports, plans)
// get room for large accounts; hand-written ones far less.
const (
	maxSecretFile  = 64 << 10  // --api-token-file, --api-key-file
	maxCatalogFile = 16 << 20  // --catalog
	maxRulesFile   = 64 << 20  // translate --rules
	maxBaseline    = 256 << 20 // --baseline
	maxSavedFile   = 1 << 30   // --snapshot, the report of sunset report, --plan
)

// openInput opens a file named by a flag for reading, bounded; the error names the file.
func openInput(path string, limit int64) (io.ReadCloser, error) {
	return safefile.Open(path, limit)
}

// createOutput creates an output file without following a symbolic link at path (a link is
// refused: a checked-out tree must not make sunset write elsewhere).
func createOutput(path string) (io.WriteCloser, error) {
	f, err := safefile.Create(path)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// writeOutputFile writes what write produces to path through createOutput; what is an
// output's name for the error ("snapshot", "baseline"), which is fatal (exit 3).
func writeOutputFile(what, path string, write func(io.Writer) error) error {
	f, err := createOutput(path)
	if err != nil {
		return fatalError(fmt.Errorf("cannot write %s: %w", what, err))
	}
	if err := write(f); err != nil {
		_ = f.Close() // the write failed: that error is the one to report
		return fatalError(fmt.Errorf("cannot write %s %s: %w", what, path, err))
	}
	if err := f.Close(); err != nil {
		return fatalError(fmt.Errorf("cannot write %s %s: %w", what, path, err))
	}
	return nil
}
