package terraform

import (
	"bufio"
	"bytes"
	"io"

	"github.com/sunsetscan/sunset/scanner/safefile"
)

// spool is text written in pieces while the zones come and copied out once, when the file
// that holds it is written: in memory for a plan held whole (Files), in a temporary file for
// a plan written to a directory (WriteZones), so that what grows with the account's retired
// objects is not held. The file is created on the first write (unnamed: safefile.Temp);
// remove frees it.
type spool struct {
	onDisk bool
	mem    bytes.Buffer
	f      *safefile.Temp
	w      *bufio.Writer
}

// Write appends p.
func (s *spool) Write(p []byte) (int, error) {
	if !s.onDisk {
		return s.mem.Write(p)
	}
	if s.f == nil {
		f, err := safefile.NewTemp("", "sunset-terraform-*")
		if err != nil {
			return 0, err
		}
		s.f, s.w = f, bufio.NewWriterSize(f, 1<<16)
	}
	return s.w.Write(p)
}

// copyTo writes everything written so far to w.
func (s *spool) copyTo(w io.Writer) error {
	if s.f == nil {
		_, err := w.Write(s.mem.Bytes())
		return err
	}
	if err := s.w.Flush(); err != nil {
		return err
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if _, err := io.Copy(w, s.f); err != nil {
		return err
	}
	_, err := s.f.Seek(0, io.SeekEnd)
	return err
}

// remove frees the temporary file, if any.
func (s *spool) remove() error {
	if s.f == nil {
		return nil
	}
	f := s.f
	s.f, s.w = nil, nil
	return f.Close()
}
