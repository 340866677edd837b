package repo

import (
	"bytes"
	"os"
	"path"
	"strings"
)

// How a file is told binary, and what a skipped binary means for the run.
//
// git calls a file binary when its first 8,000 bytes hold a NUL; bash runs a script past a
// NUL byte all the same, so that rule alone lets a script hide from the gate. Here a file
// with a NUL is still text (and checked) when its name says it is a script, source or
// configuration sunset reads (KindOf), when it starts with "#!", or when it is mostly
// text: at most
// maxStrayBytes control bytes, or under 1% of its first 8,000 bytes (tab, line feed,
// carriage return, form feed and escape do not count). Measured on this machine: ELF
// executables hold 59-74% such bytes, PNG, gzip and zip files 10-55% (random bytes: 10.5%),
// a text file with a stray NUL a few hundredths of a percent.
const (
	binarySample  = 8000
	maxStrayBytes = 4
)

// looksBinary reports whether a file named name holding data is skipped as binary.
func looksBinary(name string, data []byte) bool {
	sample := data[:min(len(data), binarySample)]
	if bytes.IndexByte(sample, 0) < 0 {
		return false // git's rule says text: the common case, decided first
	}
	if KindOf(name) != KindText || bytes.HasPrefix(data, []byte("#!")) {
		return false
	}
	return hasManyControls(sample)
}

// hasManyControls reports whether more than maxStrayBytes and 1% of sample are control
// bytes a text file does not hold.
func hasManyControls(sample []byte) bool {
	n := 0
	for _, c := range sample {
		if (c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != 0x1b) || c == 0x7f {
			n++
		}
	}
	return n > maxStrayBytes && n*100 >= len(sample)
}

// binaryMagic are the first bytes of formats that are never run as scripts.
var binaryMagic = [][]byte{
	[]byte("\x7fELF"), {0xfe, 0xed, 0xfa, 0xce}, {0xfe, 0xed, 0xfa, 0xcf}, {0xce, 0xfa, 0xed, 0xfe},
	{0xcf, 0xfa, 0xed, 0xfe}, {0xca, 0xfe, 0xba, 0xbe}, []byte("MZ"), []byte("\x89PNG"),
	[]byte("GIF8"), {0xff, 0xd8, 0xff}, {0x1f, 0x8b}, []byte("PK\x03\x04"), []byte("%PDF"),
	[]byte("\x00asm"), []byte("BZh"), {0xfd, '7', 'z', 'X', 'Z', 0}, []byte("7z\xbc\xaf"),
	[]byte("RIFF"), []byte("wOF"), []byte("\x00\x01\x00\x00"), []byte("OTTO"), []byte("SQLite format 3"),
}

// scriptDirs are directories whose files are run as commands.
var scriptDirs = map[string]bool{"bin": true, "sbin": true, "scripts": true, "script": true, "hooks": true, ".githooks": true}

// mayBeScript reports whether a file skipped as binary might still be run as a script: it
// is executable or in a directory of commands, and does not start as a known binary format
// does. Such a file is a run error, so the gate never passes over it silently.
func mayBeScript(display, abs string, data []byte) bool {
	for _, m := range binaryMagic {
		if bytes.HasPrefix(data, m) {
			return false
		}
	}
	if fi, err := os.Lstat(abs); err == nil && fi.Mode().Perm()&0o111 != 0 {
		return true
	}
	for _, d := range strings.Split(path.Dir(strings.ReplaceAll(display, "\\", "/")), "/") {
		if scriptDirs[strings.ToLower(d)] {
			return true
		}
	}
	return false
}
