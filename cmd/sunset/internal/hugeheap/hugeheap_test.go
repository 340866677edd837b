package hugeheap

import "testing"

// TestRunsCommand: only `sunset check` asks, not another command nor a flag named check.
func TestRunsCommand(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{
		{[]string{"sunset", "check", "."}, true},
		{[]string{"sunset", "check"}, true},
		{[]string{"sunset"}, false},
		{[]string{"sunset", "scan", "--account", "a"}, false},
		{[]string{"sunset", "fix", "--check", "."}, false},
		{[]string{"sunset", "help", "check"}, false},
	} {
		if got := runsCommand(c.args); got != c.want {
			t.Errorf("runsCommand(%q) = %v, want %v", c.args, got, c.want)
		}
	}
}
