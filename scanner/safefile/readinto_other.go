//go:build !unix

package safefile

// readInto is ReadFileInto where only os.File is at hand.
func readInto(path string, limit int64, noFollow bool, buf []byte) ([]byte, error) {
	f, err := open(path, limit, noFollow)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // read-only
	return readAllInto(f.f, path, limit, buf)
}
