package js

// statements reads statements up to the end of the file, or, in a block, up to its closing
// brace.
func (p *parser) statements(block bool) {
	if !p.enter() {
		p.leave()
		p.skipBlock(block)
		return
	}
	defer p.leave()
	for !p.eof() {
		if p.at("}") {
			p.advance()
			if block {
				return
			}
			continue
		}
		start := p.i
		p.statement()
		if p.i == start {
			p.advance()
		}
	}
}

// skipBlock steps over the rest of a block nested too deep to read.
func (p *parser) skipBlock(block bool) {
	depth := 0
	for ; !p.eof(); p.advance() {
		switch {
		case p.at("{") || p.at("(") || p.at("["):
			depth++
		case p.at("}") || p.at(")") || p.at("]"):
			depth--
			if depth < 0 && block {
				p.advance()
				return
			}
		}
	}
}

// body reads a function body or block at "{".
func (p *parser) body() {
	p.advance()
	p.statements(true)
}

func (p *parser) statement() {
	t := p.tok()
	switch t.kind {
	case '{':
		p.body()
		return
	case ';':
		p.advance()
		return
	case tName:
		if t.flags&fWord == 0 {
			break
		}
		if f := keywords[p.text(t)]; f != nil && f(p) {
			return
		}
	}
	p.expr(none)
}

// keywords are the words that start a statement; each reads the statement and reports
// whether it did (type, module and the like are names too).
var keywords map[string]func(*parser) bool

func init() {
	keywords = map[string]func(*parser) bool{
		"import": (*parser).importDecl, "export": (*parser).exportDecl,
		"function": (*parser).functionDecl, "async": (*parser).asyncDecl,
		"class": (*parser).classDecl, "abstract": (*parser).abstractDecl,
		"const": (*parser).varDecl, "var": (*parser).varDecl, "let": (*parser).letDecl,
		"if": (*parser).header, "while": (*parser).header, "for": (*parser).header,
		"switch": (*parser).header, "with": (*parser).header, "catch": (*parser).header,
		"else": (*parser).lone, "do": (*parser).lone, "try": (*parser).lone,
		"finally": (*parser).lone, "debugger": (*parser).lone,
		"return": (*parser).returnStmt, "throw": (*parser).returnStmt,
		"break": (*parser).jump, "continue": (*parser).jump,
		"case": (*parser).caseStmt, "default": (*parser).defaultStmt,
		"interface": (*parser).interfaceDecl, "type": (*parser).typeDecl,
		"enum": (*parser).enumDecl, "namespace": (*parser).namespaceDecl,
		"module": (*parser).namespaceDecl, "declare": (*parser).declare,
		"global": (*parser).global,
	}
}

// lone reads a keyword that stands alone.
func (p *parser) lone() bool {
	p.advance()
	return true
}

// header reads if (...), for (...), while (...) and the like; the statement after it is
// read as the next one.
func (p *parser) header() bool {
	p.advance()
	p.accept("await")
	if !p.at("(") {
		return true
	}
	p.advance()
	for !p.eof() && !p.accept(")") {
		if p.at(";") || p.at("of") {
			p.advance()
			continue
		}
		if p.at("}") {
			break
		}
		start := p.i
		if p.at("const") || p.at("let") || p.at("var") {
			p.varDecl()
		} else {
			p.expr(none)
		}
		if p.i == start {
			p.advance()
		}
	}
	return true
}

func (p *parser) returnStmt() bool {
	p.advance()
	if !p.nl() && !p.at(";") && !p.at("}") {
		p.expr(none)
	}
	return true
}

func (p *parser) jump() bool {
	p.advance()
	if p.nameAt() && !p.nl() {
		p.advance()
	}
	return true
}

func (p *parser) caseStmt() bool {
	p.advance()
	p.expr(none)
	p.accept(":")
	return true
}

func (p *parser) defaultStmt() bool {
	if !p.peekIs(1, ":") {
		return false
	}
	p.skip(2)
	return true
}

// varDecl reads const, let and var declarations. A const assigned a string without holes
// is remembered, to be substituted where it is used later.
func (p *parser) varDecl() bool {
	isConst := p.at("const")
	p.advance()
	if isConst && p.at("enum") {
		return p.enumDecl()
	}
	for {
		name := ""
		switch {
		case p.nameAt():
			name = p.text(p.tok())
			p.advance()
		case p.at("{") || p.at("["):
			p.skipBalanced() // a destructuring pattern
		default:
			return true
		}
		p.accept("!")
		if p.accept(":") {
			p.skipType()
		}
		switch {
		case p.accept("="):
			c := ctx{name: name, assigned: true}
			v := p.assign(c)
			if v.kind == vFunc {
				p.addDecl(name)
			}
			if isConst && name != "" && v.kind == vStr && !hasHole(v.str) {
				p.setConst(name, v.str)
			}
			p.flush(v, c)
		case p.at("of") || p.at("in"):
			p.advance()
			p.expr(none)
		}
		if !p.accept(",") {
			return true
		}
	}
}

// letDecl reads let as a declaration when a name or pattern follows it.
func (p *parser) letDecl() bool {
	if n := p.peek(1); n.kind == tName || p.peekIs(1, "{") || p.peekIs(1, "[") {
		return p.varDecl()
	}
	return false
}

// functionDecl reads a function declaration.
func (p *parser) functionDecl() bool {
	p.function()
	return true
}

// function reads function [*] [name] ... at "function"; a named function with a body is a
// declaration (an overload signature has none).
func (p *parser) function() val {
	t := p.tok()
	p.advance()
	p.accept("*")
	name := ""
	if p.nameAt() {
		name = p.text(p.tok())
		p.advance()
	}
	if p.funcRest() {
		p.addDecl(name)
	}
	return val{kind: vFunc, start: t.start, end: p.prevEnd()}
}

// funcRest reads a function's type parameters, parameters, return type and body, and
// reports whether it had a body.
func (p *parser) funcRest() bool {
	if p.at("<") {
		p.typeList()
	}
	if !p.at("(") {
		return false
	}
	p.params()
	if p.at(":") {
		p.returnType()
	}
	if p.at("{") {
		p.body()
		return true
	}
	return false
}

func (p *parser) asyncDecl() bool {
	if !p.peekIs(1, "function") || p.peek(1).flags&fNL != 0 {
		return false
	}
	p.advance()
	return p.functionDecl()
}

// params reads a parameter list at "(": TypeScript modifiers, optional markers and types
// are stepped over; a default value is recorded as assigned to its parameter.
func (p *parser) params() {
	p.advance()
	for !p.eof() {
		if p.accept(")") {
			return
		}
		if p.at(",") {
			p.advance()
			continue
		}
		if p.at(";") || p.at("}") {
			return
		}
		start := p.i
		p.param()
		if p.i == start {
			p.advance()
		}
	}
}

func (p *parser) param() {
	for p.accept("@") {
		p.flush(p.postfix(none), none)
	}
	for p.nameAt() && isParamModifier(p.text(p.tok())) && (p.peek(1).kind == tName || p.peekIs(1, "{") || p.peekIs(1, "[")) {
		p.advance()
	}
	p.accept("...")
	name := ""
	switch {
	case p.nameAt():
		name = p.text(p.tok())
		p.advance()
	case p.at("{") || p.at("["):
		p.flush(p.primary(none), none)
	default:
		return
	}
	p.accept("?")
	if p.accept(":") {
		p.skipType()
	}
	if p.accept("=") {
		p.expr(ctx{name: name, assigned: true})
	}
}

func isParamModifier(s string) bool {
	switch s {
	case "public", "private", "protected", "readonly", "override":
		return true
	}
	return false
}
