// Package schema holds the JSON schema of .sunset.yaml: embedded for `sunset check
// --print-schema`, and read by editors from the repository (URL) through
// yaml-language-server's "# yaml-language-server: $schema=URL" line.
package schema

import (
	"bytes"
	_ "embed"
)

//go:embed sunset.schema.json
var config []byte

// URL is where editors read the schema: this file on the repository's main branch. It is the
// schema's $id too.
const URL = "https://raw.githubusercontent.com/sunsetscan/sunset/main/cmd/sunset/schema/sunset.schema.json"

// Config is the schema of .sunset.yaml (JSON Schema draft-07).
func Config() []byte { return bytes.Clone(config) }
