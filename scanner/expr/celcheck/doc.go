// Package celcheck validates and evaluates Rules language expressions with
// CEL (cel.dev/cel-go). One environment is built once from the field
// catalogue (scanner/catalog): every field is a CEL variable under its
// dotted name with its CEL type (String and Bytes -> string, Int -> int,
// Bool -> bool, IP -> ext.Network's IP type, Array<T> -> list(T),
// Map<T> -> map(string, T)), and every Rules function is a CEL function
// with one overload per signature and arity.
//
// Check parses with scanner/expr, lowers the Rules AST straight to a CEL
// AST (no CEL source, no CEL parse), type-checks it with cel-go's checker,
// and maps each checker error back to the original token through the CEL
// node ids. Operators lower to CEL calls: eq/ne/lt/le/gt/ge to CEL's
// operators (with IP ordering added), contains and matches to CEL's string
// functions, wildcard and strict wildcard, bitwise_and and xor to
// functions of their own; string sets to CEL's in over a list; integer and
// IP sets to one string constant of their elements (one node, parsed once
// and cached at evaluation); "in $list" to a lookup in the lists given to
// Eval. x[*] inside a function argument becomes a two-variable CEL
// comprehension (exists for any, all for all), so maps iterate their values.
//
// Decisions:
//   - Diagnostics carry a stable Code. Type errors are errors at the token
//     that is wrong: the operator when it does not apply to the left
//     operand's type, the right-hand side when only that does not fit, the
//     argument of a function that has the wrong type, the function name for
//     the wrong number of arguments, the string literal of a bad regex.
//   - Plans and phases are checked only when Options name them; a field,
//     operator (matches) or function above the zone's plan, and a field not
//     available in the phase (http.response.* in a request phase), are
//     errors, because the API rejects the rule. Renamed fields (ip.geoip.*)
//     and cf.threat_score (always 0) are warnings naming the replacement.
//   - regex_replace, to_string, wildcard_replace and uuidv4 are errors
//     unless Options.Phase is a transform or redirect phase.
//   - A $list is checked against Options.Lists only when that is non-nil
//     (unknown -> warning); managed lists ($cf.*) are always known. At
//     evaluation, a list missing from the map given to Eval is an error.
//   - Strings are byte strings: lower/upper and wildcard case folding are
//     ASCII, len and substring count bytes. A missing map key or array index
//     yields the zero value of the element type, and a missing request field
//     its type's zero value (0.0.0.0 for IP fields).
//   - Check caches results by (expression, options) in an LRU of CacheSize
//     entries; CheckAST does not cache (rewritten ASTs have no stable key).
//     A Program plans its CEL program on first Eval; programs are safe for
//     concurrent use.
package celcheck
