package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// sumsFile lists each archive's SHA-256, as sha256sum writes and `sha256sum -c` reads.
const sumsFile = "SHA256SUMS"

// archiveName is a release archive's file name: a .zip for windows, a .tar.gz elsewhere.
func archiveName(version, goos, goarch string) string {
	ext := ".tar.gz"
	if goos == "windows" {
		ext = ".zip"
	}
	return fmt.Sprintf("sunset_%s_%s_%s%s", version, goos, goarch, ext)
}

// writeArchive writes the archive of one platform's binary (the file bin) into dir and
// returns its name.
func writeArchive(dir, version, goos, goarch, bin string, mtime time.Time) (string, error) {
	name := archiveName(version, goos, goarch)
	exe, err := os.ReadFile(bin)
	if err != nil {
		return "", err
	}
	var data []byte
	if goos == "windows" {
		data, err = zipOf(binaryName(goos), exe, mtime)
	} else {
		data, err = tarGzOf(binaryName(goos), exe, mtime)
	}
	if err != nil {
		return "", err
	}
	return name, os.WriteFile(filepath.Join(dir, name), data, 0o644)
}

// tarGzOf is a gzipped tar holding one executable file, the same bytes for the same input:
// the entry's time is mtime, its owner root by number only, the gzip header without name or
// time.
func tarGzOf(name string, data []byte, mtime time.Time) ([]byte, error) {
	var buf bytes.Buffer
	gz, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	tw := tar.NewWriter(gz)
	hdr := &tar.Header{
		Typeflag: tar.TypeReg, Name: name, Mode: 0o755, Size: int64(len(data)),
		ModTime: mtime.UTC(), Format: tar.FormatUSTAR,
	}
	if err := tw.WriteHeader(hdr); err != nil {
		return nil, err
	}
	if _, err := tw.Write(data); err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := gz.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// zipOf is a zip holding one executable file, the same bytes for the same input: its time is
// mtime (in UTC).
func zipOf(name string, data []byte, mtime time.Time) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	fh := &zip.FileHeader{Name: name, Method: zip.Deflate, Modified: mtime.UTC()}
	fh.SetMode(0o755)
	f, err := zw.CreateHeader(fh)
	if err != nil {
		return nil, err
	}
	if _, err := f.Write(data); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeSums writes SHA256SUMS in dir for the archives named, in name order.
func writeSums(dir string, archives []string) error {
	names := slices.Sorted(slices.Values(archives))
	var b strings.Builder
	for _, name := range names {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(sum[:]), name)
	}
	return os.WriteFile(filepath.Join(dir, sumsFile), []byte(b.String()), 0o644)
}
