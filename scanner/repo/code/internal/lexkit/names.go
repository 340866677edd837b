package lexkit

import "bytes"

var arrow = []byte("?->")

// LastName returns the name an interpolated expression gives its hole: the expression itself
// when it is a plain name, the last element of a member chain (self.zone_id, $this->zoneId,
// @zone.id), the key of an index with a literal key (params['zone_id'], opts[:zone_id]), nil
// for anything else (a call, arithmetic). Sigils $ and @ are dropped.
func LastName(expr []byte) []byte {
	s := bytes.TrimSpace(expr)
	for len(s) > 0 && s[len(s)-1] == ']' {
		open := bytes.LastIndexByte(s, '[')
		if open < 0 {
			return nil
		}
		if k := literalKey(s[open+1 : len(s)-1]); len(k) > 0 {
			if chain(s[:open]) {
				return k
			}
			return nil
		}
		s = bytes.TrimSpace(s[:open])
	}
	if !chain(s) {
		return nil
	}
	i := len(s)
	for i > 0 && IsIdent(s[i-1]) {
		i--
	}
	if i < len(s) && s[i] >= '0' && s[i] <= '9' {
		return nil
	}
	return s[i:]
}

// chain reports whether s is a name or a chain of names joined by ., ->, ?->, ::, &.,
// with a $ or @ sigil on any of them and indexes between.
func chain(s []byte) bool {
	if len(s) == 0 {
		return false
	}
	want := true // a name must come next
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case IsIdent(c):
			for i < len(s) && IsIdent(s[i]) {
				i++
			}
			want = false
			continue
		case c == '$' || c == '@':
			if !want {
				return false
			}
		case c == '.':
		case (c == '-' || c == '&') && i+1 < len(s) && (s[i+1] == '>' || s[i+1] == '.'):
			i++
		case c == '?' && bytes.HasPrefix(s[i:], arrow):
			i += 2
		case c == ':' && i+1 < len(s) && s[i+1] == ':':
			i++
		case c == '[':
			j := bytes.IndexByte(s[i:], ']')
			if want || j < 0 {
				return false
			}
			i += j + 1
			continue
		default:
			return false
		}
		if c != '$' && c != '@' {
			want = true
		}
		i++
	}
	return !want
}

// literalKey returns the key of an index written as a quoted name or a symbol ('k', "k",
// :k, k unquoted as PHP allows inside a string), nil otherwise.
func literalKey(s []byte) []byte {
	s = bytes.TrimSpace(s)
	if len(s) >= 2 && (s[0] == '\'' || s[0] == '"') && s[len(s)-1] == s[0] {
		s = s[1 : len(s)-1]
	} else if len(s) > 0 && s[0] == ':' {
		s = s[1:]
	}
	if len(s) == 0 || !IsIdentStart(s[0]) {
		return nil
	}
	for i := 0; i < len(s); i++ {
		if !IsIdent(s[i]) {
			return nil
		}
	}
	return s
}
