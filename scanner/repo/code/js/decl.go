package js

// importDecl reads import ... from "m", import "m" and import x = require("m"); import(...)
// and import.meta are expressions.
func (p *parser) importDecl() bool {
	if p.peekIs(1, "(") || p.peekIs(1, ".") {
		return false
	}
	p.advance()
	for !p.eof() {
		t := p.tok()
		switch {
		case t.kind == tStr:
			p.addImport(p.strValue(t))
			p.advance()
			p.attributes()
			return true
		case p.at("{"):
			p.skipBalanced()
		case p.at("="):
			p.advance()
			p.expr(none)
			return true
		case t.kind == tName && (t.flags&fNL == 0 || p.peekIs(-1, ",") || p.peekIs(-1, "import")),
			p.at("*"), p.at(","):
			p.advance()
		default:
			return true
		}
	}
	return true
}

// attributes steps over with { type: "json" } after a module name.
func (p *parser) attributes() {
	if (p.at("with") || p.at("assert")) && p.peekIs(1, "{") && !p.nl() {
		p.advance()
		p.skipBalanced()
	}
}

// exportDecl reads export * from "m", export { a } from "m", export default ..., export =
// and export before a declaration.
func (p *parser) exportDecl() bool {
	p.advance()
	if p.at("type") && (p.peekIs(1, "{") || p.peekIs(1, "*")) {
		p.advance()
	}
	switch {
	case p.at("*"):
		p.advance()
		if p.accept("as") {
			p.advance()
		}
		p.from()
	case p.at("{"):
		p.skipBalanced()
		p.from()
	case p.at("default"):
		p.advance()
		if f := keywords[p.text(p.tok())]; p.nameAt() && f != nil && f(p) {
			return true
		}
		p.expr(none)
	case p.at("="):
		p.advance()
		p.expr(none)
	case p.at("import"):
		p.advance() // export import A = B.C: the rest reads as an assignment
	}
	return true
}

// from reads from "m" after an export list.
func (p *parser) from() {
	if !p.at("from") || p.peek(1).kind != tStr {
		return
	}
	p.advance()
	p.addImport(p.strValue(p.tok()))
	p.advance()
	p.attributes()
}

func (p *parser) classDecl() bool {
	p.class()
	return true
}

func (p *parser) abstractDecl() bool {
	if !p.peekIs(1, "class") {
		return false
	}
	p.advance()
	return p.classDecl()
}

// class reads a class declaration or expression at "class". Its methods with a body are
// declarations; the class name is not (a class is no function or method to call).
func (p *parser) class() val {
	t := p.tok()
	p.advance()
	if p.nameAt() && !p.at("extends") && !p.at("implements") {
		p.advance()
	}
	if p.at("<") {
		p.typeList()
	}
	if p.accept("extends") {
		p.flush(p.postfix(none), none)
		if p.at("<") {
			p.typeList()
		}
	}
	if p.accept("implements") {
		p.typeNames()
	}
	if p.at("{") {
		p.classBody()
	}
	return val{kind: vNone, start: t.start, end: p.prevEnd()}
}

func (p *parser) classBody() {
	p.advance()
	for !p.eof() {
		if p.accept("}") {
			return
		}
		if p.accept(";") || p.accept(",") {
			continue
		}
		start := p.i
		p.classMember()
		if p.i == start {
			p.advance()
		}
	}
}

// classMember reads a method, accessor, field or static block.
func (p *parser) classMember() {
	for p.accept("@") {
		p.flush(p.postfix(none), none)
	}
	if p.at("static") && p.peekIs(1, "{") {
		p.advance()
		p.body()
		return
	}
	for p.nameAt() && isClassModifier(p.text(p.tok())) && (p.startsKey(1) || p.peek(1).kind == tName) {
		p.advance()
	}
	p.accept("*")
	name := ""
	switch t := p.tok(); {
	case t.kind == tName || t.kind == tNum:
		name = p.text(t)
		p.advance()
	case t.kind == tStr:
		name = p.strValue(t)
		p.advance()
	case p.at("["):
		p.skipBalanced() // a computed name or an index signature
	default:
		return
	}
	p.accept("?")
	p.accept("!")
	if p.at("(") || p.at("<") {
		if p.funcRest() {
			p.addDecl(name)
		}
		return
	}
	if p.accept(":") {
		p.skipType()
	}
	if p.accept("=") {
		c := ctx{name: name, assigned: true}
		v := p.assign(c)
		if v.kind == vFunc {
			p.addDecl(name)
		}
		p.flush(v, c)
	}
}

// typeNames steps over a comma-separated list of types (extends A, B; implements C).
func (p *parser) typeNames() {
	for p.skipType() && p.accept(",") {
		continue
	}
}

func isClassModifier(s string) bool {
	switch s {
	case "static", "public", "private", "protected", "readonly", "abstract", "override",
		"declare", "async", "get", "set", "accessor":
		return true
	}
	return false
}

// interfaceDecl steps over an interface: its method signatures are not declarations.
func (p *parser) interfaceDecl() bool {
	if p.peek(1).kind != tName {
		return false
	}
	p.skip(2)
	if p.at("<") {
		p.typeList()
	}
	if p.accept("extends") {
		p.typeNames()
	}
	if p.at("{") {
		p.skipBalanced()
	}
	return true
}

// typeDecl steps over type Name<T> = ...
func (p *parser) typeDecl() bool {
	if p.peek(1).kind != tName || !p.peekIs(2, "=") && !p.peekIs(2, "<") {
		return false
	}
	p.skip(2)
	if p.at("<") {
		p.typeList()
	}
	if p.accept("=") {
		p.skipType()
	}
	return true
}

// enumDecl reads an enum's members; a member's value is recorded as assigned to it.
func (p *parser) enumDecl() bool {
	if p.peek(1).kind != tName || !p.peekIs(2, "{") {
		return false
	}
	p.skip(3)
	for !p.eof() && !p.accept("}") {
		start := p.i
		name := ""
		switch t := p.tok(); t.kind {
		case tName:
			name = p.text(t)
			p.advance()
		case tStr:
			name = p.strValue(t)
			p.advance()
		}
		if p.accept("=") {
			p.expr(ctx{name: name, assigned: true})
		}
		p.accept(",")
		if p.i == start {
			p.advance()
		}
	}
	return true
}

// namespaceDecl reads namespace A.B { ... } and module "m" { ... }, whose names are the
// file's namespace declarations.
func (p *parser) namespaceDecl() bool {
	n := p.peek(1)
	if n.flags&fNL != 0 || n.kind != tName && n.kind != tStr {
		return false
	}
	p.advance()
	if n.kind == tStr {
		p.addImport(p.strValue(n))
		p.advance()
		return true
	}
	start := n.start
	p.advance()
	for p.at(".") && p.peek(1).kind == tName {
		p.skip(2)
	}
	if !p.at("{") {
		return true
	}
	p.addImport(p.src[start:p.prevEnd()])
	return true
}

// declare reads "declare" before a declaration; what follows is read as usual (an ambient
// function has no body, so it declares nothing).
func (p *parser) declare() bool {
	if p.peek(1).kind != tName || p.peek(1).flags&fNL != 0 {
		return false
	}
	p.advance()
	return true
}

// global reads the global of declare global { ... }.
func (p *parser) global() bool {
	if !p.peekIs(1, "{") {
		return false
	}
	p.advance()
	return true
}
