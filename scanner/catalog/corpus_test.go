package catalog

import (
	"bufio"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// notFields are dotted names that occur in the real-world expressions but are not fields of
// the Rules language, each with the reason.
var notFields = map[string]string{
	"ip.addr": "the open-source engine's test-scheme name for the client address, copied into " +
		"Terraform examples; the public field reference has only ip.src, so a scanner should " +
		"report it as unknown and suggest ip.src",
}

// corpusDir returns the real-world corpus folder from SUNSET_CORPUS, or skips.
func corpusDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("SUNSET_CORPUS")
	if dir == "" {
		t.Skip("SUNSET_CORPUS is not set: skipping the real-world corpus test (set it to the shared/realworld folder)")
	}
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("SUNSET_CORPUS=%s is not readable (%v): skipping", dir, err)
	}
	return dir
}

var identifier = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*`)

// stripStrings blanks out the string literals of an expression ("..." with escapes, and raw
// strings r"..." / r#"..."#), so names inside them are not taken for fields.
func stripStrings(s string) string {
	var b strings.Builder
	isIdent := func(c byte) bool {
		return c == '_' || c == '.' || c == '$' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c == 'r' && (i == 0 || !isIdent(s[i-1])) {
			j := i + 1
			for j < len(s) && s[j] == '#' {
				j++
			}
			if j < len(s) && s[j] == '"' {
				closing := "\"" + strings.Repeat("#", j-i-1)
				if k := strings.Index(s[j+1:], closing); k >= 0 {
					b.WriteString(` "" `)
					i = j + 1 + k + len(closing)
					continue
				}
			}
		}
		if c == '"' {
			j := i + 1
			for j < len(s) && s[j] != '"' {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			b.WriteString(` "" `)
			i = j + 1
			continue
		}
		b.WriteByte(c)
		i++
	}
	return b.String()
}

// fieldNames returns the dotted names starting with http., ip., cf., raw. or equal to ssl
// that an expression uses outside string literals (list names like $cf.open_proxies excluded).
func fieldNames(expr string) []string {
	s := stripStrings(expr)
	s = strings.NewReplacer(`\n`, " ", `\r`, " ", `\t`, " ").Replace(s)
	var out []string
	for _, loc := range identifier.FindAllStringIndex(s, -1) {
		if loc[0] > 0 && strings.ContainsRune("$.", rune(s[loc[0]-1])) {
			continue
		}
		name := s[loc[0]:loc[1]]
		if name == "ssl" || strings.HasPrefix(name, "http.") || strings.HasPrefix(name, "ip.") ||
			strings.HasPrefix(name, "cf.") || strings.HasPrefix(name, "raw.") {
			out = append(out, name)
		}
	}
	return out
}

func TestFieldNamesExtraction(t *testing.T) {
	got := fieldNames(`(http.host eq "cf.example ip.src") and ip.src in $cf.open_proxies and not ssl` +
		` and any(http.request.headers["x-ip.src"][*] contains r#"http.fake "x""#) or\n(cf.zone.name eq "a\"b ip.x")`)
	want := []string{"http.host", "ip.src", "ssl", "http.request.headers", "cf.zone.name"}
	if !slices.Equal(got, want) {
		t.Errorf("fieldNames = %v, want %v", got, want)
	}
}

func TestCorpusFieldsCatalogued(t *testing.T) {
	dir := corpusDir(t)
	f, err := os.Open(filepath.Join(dir, "expressions.txt"))
	if err != nil {
		t.Fatalf("open corpus: %v", err)
	}
	defer func() {
		if err := f.Close(); err != nil {
			t.Error(err)
		}
	}()
	fc := Fields()
	seen := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	lines := 0
	for sc.Scan() {
		lines++
		for _, n := range fieldNames(sc.Text()) {
			seen[n]++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if lines < 100 || len(seen) < 20 {
		t.Fatalf("read %d expressions with %d distinct names: is %s the corpus?", lines, len(seen), dir)
	}
	var missing []string
	for _, n := range slices.Sorted(maps.Keys(seen)) {
		_, known := fc.Field(n)
		_, allowed := notFields[n]
		switch {
		case known && allowed:
			t.Errorf("%s is both in fields.yaml and allow-listed as not a field", n)
		case !known && !allowed:
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		t.Errorf("fields used in %s but missing from fields.yaml: %v", filepath.Join(dir, "expressions.txt"), missing)
	}
	for n := range notFields {
		if seen[n] == 0 {
			t.Errorf("allow-listed %s no longer occurs in the corpus: remove it", n)
		}
	}
	if !t.Failed() {
		t.Logf("%d expressions, %d distinct field names, all catalogued or allow-listed", lines, len(seen))
	}
}
