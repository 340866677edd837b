package repo

import "github.com/sunsetscan/sunset/scanner/repo/code/golang"

// The language readers, one subpackage each under scanner/repo/code: a new language is a
// reader there and a line here (and its kind in kinds).
func init() {
	codeReaders[KindGo] = golang.Read
}
