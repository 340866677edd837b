package lexkit

// Chain is a reader's token list as the callee walk asks about it. Token indexes out of
// range must give false (IsMember, IsName) or -1 (Opener).
type Chain interface {
	// IsMember reports whether token k is a member operator (".", "->", "::"...).
	IsMember(k int) bool
	// IsName reports whether token k is a name a callee chain may hold.
	IsName(k int) bool
	// Opener returns the index of the bracket the ")" or "]" at token k closes when it is
	// before k, else -1.
	Opener(k int) int
	// Text returns token k's name.
	Text(k int) string
}

// maxChain bounds the walk back along a chain: a longer one is cut at its end.
const maxChain = 64

// Callee walks back from the called name at token j through member operators, skipping
// calls and indexes in between (client(opts).put is [client put]). It returns the chain in
// order, written over scratch, and the chain's first token.
func Callee(c Chain, j int, scratch []string) ([]string, int) {
	rev, first, _ := walkChain(c, j, scratch[:0], true)
	for a, b := 0, len(rev)-1; a < b; a, b = a+1, b-1 {
		rev[a], rev[b] = rev[b], rev[a]
	}
	return rev, first
}

// ChainStart returns the first token of the member chain ending at token j, as Callee
// walks it (past a chain cut at maxChain names, the name before the cut).
func ChainStart(c Chain, j int) int {
	_, _, start := walkChain(c, j, nil, false)
	return start
}

// walkChain is Callee's walk: the names last first, appended to rev when collect is set,
// the last name collected and the token the walk stopped at.
func walkChain(c Chain, j int, rev []string, collect bool) ([]string, int, int) {
	first := j
	for n := 0; n < maxChain; n++ {
		if collect {
			rev = append(rev, c.Text(j))
		}
		first = j
		k := j - 1
		if !c.IsMember(k) {
			break
		}
		k--
		for o := c.Opener(k); o >= 0; o = c.Opener(k) {
			k = o - 1
		}
		if !c.IsName(k) {
			break
		}
		j = k
	}
	return rev, first, j
}

// LastMember returns the last name of tokens [a, b) when they are names joined by member
// operators, without calls or indexes (self.zone_id gives zone_id), else "".
func LastMember(c Chain, a, b int) string {
	for k := a; k < b; k++ {
		if !c.IsName(k) && !c.IsMember(k) {
			return ""
		}
	}
	if c.IsName(b - 1) {
		return c.Text(b - 1)
	}
	return ""
}
