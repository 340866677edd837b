package js

// The TypeScript type readers step over types without recording anything, so that a
// caller can try one and go back (p.i = save) when the tokens turn out not to be a type:
// f<T>(x) is a call with a type argument, a < b is a comparison.

// skipBalanced steps over the bracket at the current token and everything up to its match;
// false when the file ends first (or the token opens no bracket).
func (p *parser) skipBalanced() bool {
	switch span := p.toks[p.i].span; span {
	case 0:
		if p.at("(") || p.at("[") || p.at("{") {
			p.i = len(p.toks) - 1
		}
		return false
	case farSpan:
		return p.scanBalanced()
	default:
		p.i += int(span) + 1
		return true
	}
}

// scanBalanced steps over a bracketed stretch too long for its token's span.
func (p *parser) scanBalanced() bool {
	depth := 0
	for ; !p.eof(); p.advance() {
		switch p.tok().kind {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
			if depth <= 0 {
				p.advance()
				return true
			}
		}
	}
	return false
}

// skipType steps over a type: unions and intersections of operands, conditional types.
func (p *parser) skipType() bool {
	if !p.enter() {
		p.leave()
		return false
	}
	defer p.leave()
	if p.at("|") || p.at("&") {
		p.advance()
	}
	if !p.typeOperand() {
		return false
	}
	for {
		switch {
		case p.at("|") || p.at("&"):
			p.advance()
			if !p.typeOperand() {
				return false
			}
		case p.at("extends") && !p.nl():
			p.advance()
			if !p.typeOperand() {
				return false
			}
			if p.at("?") {
				p.advance()
				if !p.skipType() || !p.accept(":") || !p.skipType() {
					return false
				}
			}
		default:
			return true
		}
	}
}

// typeOperand steps over one type operand and its postfixes (T[], T[K], A<B>).
func (p *parser) typeOperand() bool {
	for p.nameAt() && typePrefix(p.text(p.tok())) && p.typeStartsAt(1) {
		p.advance()
	}
	t := p.tok()
	switch t.kind {
	case tName:
		p.advance()
		for (p.at(".") || p.at("?.")) && p.peek(1).kind == tName {
			p.skip(2)
		}
		if p.text(t) == "import" && p.at("(") { // typeof import("m")
			p.skipBalanced()
		}
		if p.at("is") && !p.nl() { // x is T
			p.advance()
			return p.skipType()
		}
	case tStr, tNum, tTmpl:
		p.advance()
	case tTHead:
		if !p.templateType() {
			return false
		}
	default:
		if !isPunct(t.kind) || !p.punctType() {
			return false
		}
	}
	for !p.nl() {
		switch {
		case p.at("<"):
			if !p.typeList() {
				return false
			}
		case p.at("["):
			if !p.skipBalanced() {
				return false
			}
		case p.at(".") && p.peek(1).kind == tName:
			p.skip(2)
		default:
			return true
		}
	}
	return true
}

// punctType steps over a type that starts with punctuation: object types, tuples,
// parenthesised and function types, generic function types, negative numbers.
func (p *parser) punctType() bool {
	switch p.text(p.tok()) {
	case "{", "[":
		return p.skipBalanced()
	case "(":
		if !p.skipBalanced() {
			return false
		}
		if p.accept("=>") {
			return p.skipType()
		}
		return true
	case "<":
		if !p.typeList() || !p.at("(") || !p.skipBalanced() || !p.accept("=>") {
			return false
		}
		return p.skipType()
	case "-":
		p.advance()
		if p.tok().kind != tNum {
			return false
		}
		p.advance()
		return true
	}
	return false
}

// templateType steps over a template literal type `a${T}b`.
func (p *parser) templateType() bool {
	p.advance()
	for {
		if !p.skipType() {
			return false
		}
		switch p.tok().kind {
		case tTMid:
			p.advance()
		case tTTail:
			p.advance()
			return true
		default:
			return false
		}
	}
}

// typeList steps over <...> type arguments or parameters: types separated by commas,
// with in/out/const modifiers and = defaults.
func (p *parser) typeList() bool {
	start := p.i
	if !p.at("<") || p.noTypes[start] {
		return false
	}
	if !p.typeItems() {
		// The next try from here, after the tokens are read as expressions, fails too.
		if p.noTypes == nil {
			p.noTypes = map[int]bool{}
		}
		p.noTypes[start] = true
		return false
	}
	return true
}

func (p *parser) typeItems() bool {
	p.advance()
	for {
		for (p.at("in") || p.at("out") || p.at("const")) && p.peek(1).kind == tName {
			p.advance()
		}
		if !p.skipType() {
			return false
		}
		if p.accept("=") && !p.skipType() {
			return false
		}
		if p.accept(",") {
			if p.accept(">") {
				return true
			}
			continue
		}
		return p.accept(">")
	}
}

// typePrefix reports whether a word is a type operator before an operand.
func typePrefix(s string) bool {
	switch s {
	case "keyof", "typeof", "readonly", "unique", "infer", "asserts", "abstract", "new":
		return true
	}
	return false
}

// typeStartsAt reports whether the token n places ahead can start a type operand.
func (p *parser) typeStartsAt(n int) bool {
	t := p.peek(n)
	switch t.kind {
	case tName, tStr, tNum, tTmpl, tTHead, '{', '[', '(', '<', '-':
		return true
	}
	return false
}
