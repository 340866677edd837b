package expr

// CompareInt evaluates the comparison c as if its left operand had the
// integer value v. ok is false when v alone does not decide it: the right
// operand is not an integer literal or a set of integers and integer ranges,
// or the operator does not compare integers (contains, matches, wildcard).
//
// A migration asks this of a field whose value is now fixed, such as
// cf.threat_score, which is always 0.
func CompareInt(c *Comparison, v int64) (result, ok bool) {
	switch y := c.Y.(type) {
	case *IntLit:
		return compareIntLit(c.Op, v, y.Value)
	case *SetLit:
		if c.Op != OpIn {
			return false, false
		}
		return inIntSet(v, y)
	}
	return false, false
}

// compareIntLit evaluates "v op n".
func compareIntLit(op Op, v, n int64) (result, ok bool) {
	switch op {
	case OpEq:
		return v == n, true
	case OpNe:
		return v != n, true
	case OpLt:
		return v < n, true
	case OpLe:
		return v <= n, true
	case OpGt:
		return v > n, true
	case OpGe:
		return v >= n, true
	case OpBitwiseAnd:
		return v&n != 0, true
	}
	return false, false
}

// inIntSet evaluates "v in {...}". A set holding anything but integers and
// integer ranges is unknown, unless v is found before the first such element.
func inIntSet(v int64, set *SetLit) (result, ok bool) {
	for _, el := range set.Elems {
		switch el := el.(type) {
		case *IntLit:
			if el.Value == v {
				return true, true
			}
		case *RangeLit:
			lo, okLo := el.Lo.(*IntLit)
			hi, okHi := el.Hi.(*IntLit)
			if !okLo || !okHi {
				return false, false
			}
			if lo.Value <= v && v <= hi.Value {
				return true, true
			}
		default:
			return false, false
		}
	}
	return false, true
}

// ComparesField reports whether c compares the field name itself (not a
// function of it, nor an element of it) with its right operand.
func ComparesField(c *Comparison, name string) bool {
	f, ok := c.X.(*Field)
	return ok && f.Name == name
}

// FieldComparisons lists, in source order, the comparisons of n whose left
// operand is the field name (see ComparesField).
func FieldComparisons(n Node, name string) []*Comparison {
	var out []*Comparison
	Inspect(n, func(n Node) bool {
		if c, ok := n.(*Comparison); ok && ComparesField(c, name) {
			out = append(out, c)
		}
		return true
	})
	return out
}
