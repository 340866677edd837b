package js

// JSX is read for the expressions inside it (attribute values and {children}); its text
// is stepped over token by token (an apostrophe in the text starts a string token that
// runs to the end of the line: JSX text is not tokenized as text).

// jsx reads a JSX element or fragment at "<".
func (p *parser) jsx(t token) val {
	if !p.enter() {
		p.leave()
		p.advance()
		return val{kind: vNone, start: t.start, end: t.end}
	}
	defer p.leave()
	p.advance()
	if !p.at(">") {
		p.jsxName()
		if !p.jsxAttributes() {
			return val{kind: vNone, start: t.start, end: p.prevEnd()}
		}
	}
	if p.accept("/") { // <br/>
		p.accept(">")
		return val{kind: vNone, start: t.start, end: p.prevEnd()}
	}
	p.accept(">")
	p.jsxChildren()
	return val{kind: vNone, start: t.start, end: p.prevEnd()}
}

// jsxName steps over a tag name: a, Foo.Bar, svg:rect, custom-element.
func (p *parser) jsxName() {
	for p.nameAt() {
		p.advance()
		if !p.at(".") && !p.at(":") && !p.at("-") {
			break
		}
		p.advance()
	}
	if p.at("<") {
		save := p.i
		if !p.typeList() {
			p.i = save
		}
	}
}

// jsxAttributes reads attributes up to ">" or "/"; a string value is recorded under its
// attribute's name. false when something that is no attribute comes first.
func (p *parser) jsxAttributes() bool {
	for !p.eof() {
		switch t := p.tok(); {
		case p.at(">") || p.at("/"):
			return true
		case p.at("{"): // {...props}
			p.advance()
			p.accept("...")
			p.expr(none)
			p.accept("}")
		case t.kind == tName:
			name := p.text(t)
			p.advance()
			for p.at("-") || p.at(":") {
				p.advance()
				if p.nameAt() {
					name += "-" + p.text(p.tok())
					p.advance()
				}
			}
			if p.accept("=") {
				p.jsxValue(name)
			}
		default:
			return false
		}
	}
	return false
}

func (p *parser) jsxValue(name string) {
	switch t := p.tok(); {
	case t.kind == tStr:
		p.advance()
		p.flush(val{kind: vStr, start: t.start, end: t.end, str: p.strValue(t)}, ctx{name: name})
	case p.at("{"):
		p.advance()
		p.expr(ctx{name: name})
		p.accept("}")
	case p.at("<"):
		p.jsx(t)
	}
}

// jsxChildren reads children up to the closing tag: nested elements and {expressions}.
// An unbalanced closing bracket or a string the tokenizer ran to the end of the line (from
// an apostrophe in the text) ends them too, so that misread text cannot swallow the code
// after the element.
func (p *parser) jsxChildren() {
	depth := 0
	for !p.eof() {
		t := p.tok()
		switch {
		case t.flags&fOpen != 0:
			p.advance()
			return
		case p.at("<") && p.peekIs(1, "/"):
			p.skip(2)
			p.jsxName()
			p.accept(">")
			return
		case p.at("<"):
			p.jsx(t)
		case p.at("{"):
			p.advance()
			if !p.at("}") {
				p.expr(none)
			}
			p.accept("}")
		case p.at("(") || p.at("["):
			depth++
			p.advance()
		case p.at(")") || p.at("]") || p.at("}"):
			if depth == 0 {
				return
			}
			depth--
			p.advance()
		default:
			p.advance()
		}
	}
}
