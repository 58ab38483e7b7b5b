package mcp

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// HeaderParamPrefix starts the name of every header that mirrors a tool
// argument: Mcp-Param-Region for a property annotated "x-mcp-header":
// "Region".
const HeaderParamPrefix = "Mcp-Param-"

// KeywordParamHeader is the inputSchema annotation that names the header
// a property's argument is mirrored into.
const KeywordParamHeader = "x-mcp-header"

// ParamHeader is one x-mcp-header annotation of a tool's inputSchema.
type ParamHeader struct {
	// Name is X of the header Mcp-Param-X.
	Name string
	// Path is the chain of properties keys from the schema's root to the
	// annotated property: ["region"], or ["target", "region"] nested.
	Path []string
	// Type is the property's JSON type: string, integer or boolean.
	Type string
}

// Header is the HTTP header the argument travels in.
func (p ParamHeader) Header() string { return HeaderParamPrefix + p.Name }

// Argument names the argument in a sentence: arguments.target.region.
func (p ParamHeader) Argument() string { return "arguments." + strings.Join(p.Path, ".") }

// In returns the argument p mirrors in args, the arguments object of a
// tools/call, and false when it is absent or null: then its header is
// omitted (MCP 2026-07-28, "Header extraction").
func (p ParamHeader) In(args json.RawMessage) (json.RawMessage, bool) {
	v := args
	for _, key := range p.Path {
		var members map[string]json.RawMessage
		if json.Unmarshal(v, &members) != nil {
			return nil, false
		}
		var ok bool
		if v, ok = members[key]; !ok {
			return nil, false
		}
	}
	return v, len(v) > 0 && string(v) != "null"
}

// ParamHeaders returns the x-mcp-header annotations of inputSchema, sorted
// by path, and an error naming the first that breaks a rule of MCP
// 2026-07-28 (server/tools, "x-mcp-header"): clients must drop such a
// tool, so a server must not offer one. The rules: the value is an HTTP
// token (RFC 9110, 1*tchar), unique ignoring case; the property is a
// string, an integer or a boolean; and it is reached from the root
// through properties keys alone, not through items, $ref, allOf or any
// other keyword.
func ParamHeaders(inputSchema json.RawMessage) ([]ParamHeader, error) {
	var root any
	if err := json.Unmarshal(inputSchema, &root); err != nil {
		return nil, fmt.Errorf("the inputSchema is not JSON: %w", err)
	}
	w := headerWalk{seen: map[string]string{}}
	if obj, ok := root.(map[string]any); ok {
		if _, ok := obj[KeywordParamHeader]; ok {
			return nil, fmt.Errorf("%s on the schema's root: only a property can be mirrored into a header", KeywordParamHeader)
		}
	}
	if err := w.schema(root, nil, true); err != nil {
		return nil, err
	}
	slices.SortFunc(w.out, func(a, b ParamHeader) int { return slices.Compare(a.Path, b.Path) })
	return w.out, nil
}

// headerWalk collects annotations while it walks a schema.
type headerWalk struct {
	out  []ParamHeader
	seen map[string]string // lower-case name: the argument that has it
}

// dataKeywords hold instances, not schemas: an "x-mcp-header" member in
// them is data.
var dataKeywords = map[string]bool{"const": true, "enum": true, "default": true, "examples": true}

// schema walks the schema v at path; reachable says whether it is reached
// from the root through properties keys alone.
func (w *headerWalk) schema(v any, path []string, reachable bool) error {
	obj, ok := v.(map[string]any)
	if !ok {
		return w.any(v, path)
	}
	for key, sub := range obj {
		switch {
		case key == KeywordParamHeader && len(path) > 0:
			if !reachable {
				return fmt.Errorf("%s at %s: an annotated property must be reached from the root through properties alone, not through $ref, items, allOf or another keyword", KeywordParamHeader, strings.Join(path, "/"))
			}
			if err := w.add(sub, obj["type"], path); err != nil {
				return err
			}
		case key == "properties":
			props, ok := sub.(map[string]any)
			if !ok {
				continue
			}
			for name, p := range props {
				if err := w.schema(p, append(slices.Clip(path), name), reachable); err != nil {
					return err
				}
			}
		case dataKeywords[key]:
		default:
			if err := w.any(sub, append(slices.Clip(path), key)); err != nil {
				return err
			}
		}
	}
	return nil
}

// any walks a value under a keyword other than properties: any schema in
// it is unreachable.
func (w *headerWalk) any(v any, path []string) error {
	switch v := v.(type) {
	case map[string]any:
		return w.schema(v, path, false)
	case []any:
		for _, x := range v {
			if err := w.any(x, path); err != nil {
				return err
			}
		}
	}
	return nil
}

// add records the annotation name of the property at path, whose type is
// typ.
func (w *headerWalk) add(name, typ any, path []string) error {
	at := strings.Join(path, ".")
	s, ok := name.(string)
	switch {
	case !ok || s == "":
		return fmt.Errorf("%s of %s must be a non-empty string", KeywordParamHeader, at)
	case !isToken(s):
		return fmt.Errorf("%s %q of %s is not an HTTP token: use letters, digits and !#$%%&'*+-.^_`|~ only", KeywordParamHeader, s, at)
	case typ != "string" && typ != "integer" && typ != "boolean":
		return fmt.Errorf("%s of %s: the property's type is %v, but only a string, an integer or a boolean can be mirrored into a header", KeywordParamHeader, at, typ)
	}
	if other, dup := w.seen[strings.ToLower(s)]; dup {
		return fmt.Errorf("%s %q of %s is already the header of %s (names are compared ignoring case)", KeywordParamHeader, s, at, other)
	}
	w.seen[strings.ToLower(s)] = at
	w.out = append(w.out, ParamHeader{Name: s, Path: slices.Clone(path), Type: typ.(string)})
	return nil
}

// isToken reports whether s is an HTTP token (RFC 9110 section 5.6.2).
func isToken(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
		if !ok {
			return false
		}
	}
	return s != ""
}
