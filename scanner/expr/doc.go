// Package expr is the syntax half of the Rules language toolchain: a lexer,
// a recursive-descent parser producing an AST with byte positions, a
// canonical printer, and helpers to list and rewrite what an expression uses.
// It knows nothing about field types or CEL; package celcheck lowers this AST.
//
// Grammar (tightest binding last):
//
//	expr       = xor { ("or" | "||") xor }
//	xor        = and { ("xor" | "^^") and }
//	and        = not { ("and" | "&&") not }
//	not        = ("not" | "!") not | comparison
//	comparison = "(" expr ")" | "true" | "false" | value [ compareOp rhs ]
//	value      = ident [ "(" [ expr { "," expr } ] ")" ] { "[" ( string | int | "*" ) "]" }
//	             | literal                      (only as a function argument or in ParseValue)
//	rhs        = literal | "{" { element } "}" | "$" listname
//	element    = literal | int ".." int | ip ".." ip
//
// Decisions the engine sources leave open, and how this package settles them:
//
//   - Positions: every node carries byte offsets into the source (Pos, End).
//     Errors carry 1-based line and column; columns count runes (characters),
//     not bytes, as an editor and the service's "(1:73)" message do.
//   - Boolean literals: the open-source engine (wirefilter) has no boolean
//     literal; its test scheme's t/f/at/af are fields. The service, however,
//     accepts the expression "true" (documented for execute rules and present
//     in the corpus), so "true" and "false" are keywords usable wherever a
//     boolean operand is expected. They cannot be compared ("x == true" is an
//     error, as in the engine). No real field is named true or false.
//   - Unpack "[*]" is accepted only lexically inside a function's argument
//     list (any(x[*] == "a"), all(len(x[*])[*] in {1})). The engine's
//     sub-expression lexer accepts a bare "x[*] == 1", but that yields an
//     array of booleans, never a filter, and the service's docs mark it
//     invalid.
//   - String escapes follow the engine: \" \\ \xHH and three-digit octal \OOO.
//     The right-hand side of matches/~ is lexed the way the engine lexes a
//     regular expression literal: escapes are kept verbatim for the regex
//     engine (so "a\.b" is valid there), \" becomes ", and a quote inside a
//     [...] character class does not end the string.
//   - Unquoted values: integers (decimal, 0x hex, leading-0 octal, negative
//     decimal), IPv4/IPv6 addresses, CIDRs (sets only), ranges a..b (sets
//     only) and byte strings (hh:hh, hh-hh or hh.hh, two bytes or more). A
//     token that is both an IP address and a byte string (10:20:30:40:50:60:70:80)
//     is an IPLit whose Text keeps the spelling, so a type checker can read
//     it as bytes for a bytes field; the printer keeps such spellings.
//   - Whitespace is space, tab, CR and LF.
//   - An expression longer than 4,096 characters (runes) is reported as an
//     error but is still parsed.
//   - English operators are lowercase only; "AND", "Eq" and similar are
//     reported with a hint. starts_with/ends_with used as operators are
//     reported with a hint that they are functions.
//   - Nesting (parentheses, not, calls) deeper than MaxDepth is an error, so
//     hostile input cannot exhaust the stack.
package expr
