package ci

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rhysd/actionlint"
)

// The expressions of the action, evaluated as the runner does, with actionlint's parser. Only
// what the action uses is supported; anything else fails the test, so that a new use is seen.

// interpolate replaces each ${{ EXPR }} of s by its value as a string.
func (c *composite) interpolate(s string) string {
	c.t.Helper()
	var b strings.Builder
	for {
		i := strings.Index(s, "${{")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		rest := s[i+3:]
		lex := actionlint.NewExprLexer(rest)
		node, err := actionlint.NewExprParser().Parse(lex)
		if err != nil {
			c.t.Fatalf("expression in %q: %v", s, err)
		}
		b.WriteString(str(c.value(node)))
		s = rest[lex.Offset():]
	}
}

// eval evaluates one expression (without ${{ }}).
func (c *composite) eval(src string) any {
	c.t.Helper()
	node, err := actionlint.NewExprParser().Parse(actionlint.NewExprLexer(src + "}}"))
	if err != nil {
		c.t.Fatalf("expression %q: %v", src, err)
	}
	return c.value(node)
}

// contexts are the contexts a composite step can read.
func (c *composite) contexts() map[string]any {
	return map[string]any{
		"inputs": c.inputs, "steps": c.steps, "github": c.github,
		"runner": map[string]any{
			"os": c.env["RUNNER_OS"], "arch": c.env["RUNNER_ARCH"],
			"temp": c.env["RUNNER_TEMP"], "tool_cache": c.env["RUNNER_TOOL_CACHE"],
		},
	}
}

func (c *composite) value(n actionlint.ExprNode) any {
	c.t.Helper()
	switch n := n.(type) {
	case *actionlint.StringNode:
		return n.Value
	case *actionlint.BoolNode:
		return n.Value
	case *actionlint.IntNode:
		return n.Value
	case *actionlint.NullNode:
		return nil
	case *actionlint.VariableNode:
		v, ok := c.contexts()[n.Name]
		if !ok {
			c.t.Fatalf("context %s: not one these tests give", n.Name)
		}
		return v
	case *actionlint.ObjectDerefNode:
		obj, ok := c.value(n.Receiver).(map[string]any)
		if !ok {
			return nil
		}
		return obj[n.Property]
	case *actionlint.NotOpNode:
		return !truthy(c.value(n.Operand))
	case *actionlint.LogicalOpNode:
		l := c.value(n.Left)
		if truthy(l) == (n.Kind == actionlint.LogicalOpNodeKindOr) {
			return l
		}
		return c.value(n.Right)
	case *actionlint.CompareOpNode:
		return c.compare(n)
	case *actionlint.FuncCallNode:
		return c.call(n)
	}
	c.t.Fatalf("expression node %T: not supported by these tests", n)
	return nil
}

// compare evaluates == and !=: strings compare ignoring case, as GitHub's do, and null
// equals the empty string.
func (c *composite) compare(n *actionlint.CompareOpNode) bool {
	c.t.Helper()
	l, r := c.value(n.Left), c.value(n.Right)
	var eq bool
	switch {
	case isText(l) && isText(r):
		eq = strings.EqualFold(str(l), str(r))
	default:
		eq = fmt.Sprint(l) == fmt.Sprint(r)
	}
	switch n.Kind {
	case actionlint.CompareOpNodeKindEq:
		return eq
	case actionlint.CompareOpNodeKindNotEq:
		return !eq
	}
	c.t.Fatalf("operator %s: not supported by these tests", n.Kind)
	return false
}

func (c *composite) call(n *actionlint.FuncCallNode) any {
	c.t.Helper()
	switch strings.ToLower(n.Callee) {
	case "success":
		return !c.failed
	case "failure":
		return c.failed
	case "always":
		return true
	case "cancelled":
		return false
	}
	c.t.Fatalf("function %s: not supported by these tests", n.Callee)
	return nil
}

func isText(v any) bool {
	switch v.(type) {
	case nil, string:
		return true
	}
	return false
}

// truthy is an expression value's truth: false, null, 0 and "" are false.
func truthy(v any) bool {
	switch v := v.(type) {
	case nil:
		return false
	case bool:
		return v
	case int:
		return v != 0
	case string:
		return v != ""
	}
	return true
}

// str is a value as ${{ }} writes it into a string.
func str(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case bool:
		return strconv.FormatBool(v)
	case int:
		return strconv.Itoa(v)
	}
	return fmt.Sprint(v)
}
