package cli

import (
	"net/http/httptest"
	"testing"

	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/emulatortest"
)

// startWatchedEmulator is startEmulator with the emulator watched, so that a test can wait
// for a point of a run (and hold the answer that reaches it) instead of polling its
// counters on a clock.
func startWatchedEmulator(t *testing.T, opts emulator.Options) (*emulatortest.Watched, string) {
	t.Helper()
	w := emulatortest.Wrap(newEmulator(t, opts))
	hs := httptest.NewServer(w)
	t.Cleanup(hs.Close)
	t.Cleanup(w.Close) // before hs.Close: held answers must finish for it to return
	return w, hs.URL + emulator.BasePath
}
