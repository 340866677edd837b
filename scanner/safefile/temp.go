package safefile

import (
	"errors"
	"os"
)

// RemoveTemp closes f, a temporary file sunset made (os.CreateTemp), and removes it: both
// are tried whatever the other does, and their failures are returned together.
func RemoveTemp(f *os.File) error {
	return errors.Join(f.Close(), os.Remove(f.Name()))
}
