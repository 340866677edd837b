package repo

import (
	"github.com/sunsetscan/sunset/scanner/repo/code/elixir"
	"github.com/sunsetscan/sunset/scanner/repo/code/golang"
	"github.com/sunsetscan/sunset/scanner/repo/code/js"
	"github.com/sunsetscan/sunset/scanner/repo/code/php"
	"github.com/sunsetscan/sunset/scanner/repo/code/python"
	"github.com/sunsetscan/sunset/scanner/repo/code/ruby"
	"github.com/sunsetscan/sunset/scanner/repo/code/shell"
)

// The language readers, one subpackage each under scanner/repo/code: a new language is a
// reader there and a line here (and its kind in kinds).
func init() {
	codeReaders[KindGo] = golang.Read
	codeReaders[KindJavaScript] = js.Read
	codeReaders[KindPHP] = php.Read
	codeReaders[KindShell] = shell.Read
	codeReaders[KindPython] = python.Read
	codeReaders[KindRuby] = ruby.Read
	codeReaders[KindElixir] = elixir.Read
}
