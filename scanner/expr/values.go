package expr

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// valueError is a problem with an unquoted value, at an offset.
type valueError struct {
	pos Pos
	msg string
}

// classifyRun turns an unquoted value token into an *IntLit, *IPLit,
// *BytesLit or *RangeLit. The token starts at pos.
func classifyRun(run string, pos Pos) (Node, *valueError) {
	if i := strings.Index(run, ".."); i >= 0 {
		lo, err := classifyScalar(run[:i], pos)
		if err != nil {
			return nil, err
		}
		hi, err := classifyScalar(run[i+2:], pos+Pos(i+2))
		if err != nil {
			return nil, err
		}
		return makeRange(lo, hi, pos)
	}
	return classifyScalar(run, pos)
}

func makeRange(lo, hi Node, pos Pos) (Node, *valueError) {
	switch l := lo.(type) {
	case *IntLit:
		h, ok := hi.(*IntLit)
		if !ok {
			return nil, &valueError{pos, "a range needs two integers or two IP addresses of the same family"}
		}
		if l.Value > h.Value {
			return nil, &valueError{pos, fmt.Sprintf("range %s..%s ends before it starts", l.Text, h.Text)}
		}
	case *IPLit:
		h, ok := hi.(*IPLit)
		if !ok || l.Addr.Is4() != h.Addr.Is4() {
			return nil, &valueError{pos, "a range needs two integers or two IP addresses of the same family"}
		}
		if l.IsCIDR() || h.IsCIDR() {
			return nil, &valueError{pos, "a range is written between two addresses, not CIDRs"}
		}
		if h.Addr.Less(l.Addr) {
			return nil, &valueError{pos, fmt.Sprintf("range %s..%s ends before it starts", l.Text, h.Text)}
		}
	default:
		return nil, &valueError{pos, "a range needs two integers or two IP addresses of the same family"}
	}
	return &RangeLit{Lo: lo, Hi: hi}, nil
}

func classifyScalar(s string, pos Pos) (Node, *valueError) {
	end := pos + Pos(len(s))
	if s == "" {
		return nil, &valueError{pos, "expected a value"}
	}
	if n, ok, err := parseInt(s); ok {
		if err != "" {
			return nil, &valueError{pos, err}
		}
		return &IntLit{ValuePos: pos, EndPos: end, Value: n, Text: s}, nil
	}
	if slash := strings.IndexByte(s, '/'); slash >= 0 {
		addr, err := netip.ParseAddr(s[:slash])
		if err != nil || addr.Zone() != "" {
			return nil, &valueError{pos, fmt.Sprintf("invalid CIDR %q: %q is not an IP address", s, s[:slash])}
		}
		bits, err := strconv.Atoi(s[slash+1:])
		if err != nil || bits < 0 || s[slash+1:] == "" || s[slash+1] == '-' || s[slash+1] == '+' {
			return nil, &valueError{pos + Pos(slash+1), fmt.Sprintf("invalid CIDR %q: prefix length %q is not a number", s, s[slash+1:])}
		}
		if bits > addr.BitLen() {
			return nil, &valueError{pos + Pos(slash+1), fmt.Sprintf("invalid CIDR %q: prefix length %d is more than %d", s, bits, addr.BitLen())}
		}
		return &IPLit{ValuePos: pos, EndPos: end, Addr: addr, Bits: bits, Text: s}, nil
	}
	if addr, err := netip.ParseAddr(s); err == nil && addr.Zone() == "" {
		return &IPLit{ValuePos: pos, EndPos: end, Addr: addr, Bits: -1, Text: s}, nil
	}
	if b, ok := parseByteString(s); ok {
		return &BytesLit{ValuePos: pos, EndPos: end, Value: b, Text: s}, nil
	}
	if looksIPv4(s) {
		return nil, &valueError{pos, fmt.Sprintf("invalid IP address %q", s)}
	}
	if strings.Contains(s, ":") {
		return nil, &valueError{pos, fmt.Sprintf("invalid IPv6 address or byte string %q", s)}
	}
	return nil, &valueError{pos, fmt.Sprintf("invalid value %q: not an integer, IP address, CIDR or byte string", s)}
}

// parseInt parses an engine integer: decimal (maybe negative), 0x hex, or
// octal with a leading 0. ok is false when s is not shaped like an integer
// at all; err describes a malformed or out-of-range one.
func parseInt(s string) (n int64, ok bool, err string) {
	digits, base := s, 10
	switch {
	case strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X"):
		digits, base = s[2:], 16
		if digits == "" {
			return 0, true, fmt.Sprintf("invalid integer %q: no digits after 0x", s)
		}
		for i := 0; i < len(digits); i++ {
			if !isHex(digits[i]) {
				return 0, false, ""
			}
		}
	case strings.HasPrefix(s, "-"):
		if len(s) == 1 {
			return 0, false, ""
		}
		for i := 1; i < len(s); i++ {
			if !isDigit(s[i]) {
				return 0, false, ""
			}
		}
	default:
		for i := 0; i < len(s); i++ {
			if !isDigit(s[i]) {
				return 0, false, ""
			}
		}
		if len(s) > 1 && s[0] == '0' {
			base = 8
			for i := 1; i < len(s); i++ {
				if s[i] > '7' {
					return 0, true, fmt.Sprintf("invalid octal integer %q: a leading 0 means octal", s)
				}
			}
		}
	}
	v, e := strconv.ParseInt(digits, base, 64)
	if e != nil {
		return 0, true, fmt.Sprintf("integer %s does not fit in 64 bits", s)
	}
	return v, true, ""
}

// parseByteString parses hh(:hh)+ with :, - or . between bytes.
func parseByteString(s string) ([]byte, bool) {
	if len(s) < 5 || (len(s)+1)%3 != 0 {
		return nil, false
	}
	out := make([]byte, 0, (len(s)+1)/3)
	for i := 0; i < len(s); i += 3 {
		if !isHex(s[i]) || !isHex(s[i+1]) {
			return nil, false
		}
		if i+2 < len(s) && s[i+2] != ':' && s[i+2] != '-' && s[i+2] != '.' {
			return nil, false
		}
		out = append(out, unhex(s[i])<<4|unhex(s[i+1]))
	}
	return out, true
}

func looksIPv4(s string) bool {
	if !strings.Contains(s, ".") {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) && s[i] != '.' {
			return false
		}
	}
	return true
}
