// Package methods is the one registry of method rules: what each gRPC
// method needs (its tool's scope and weakest role) and how refusals name
// it (the tool's name and title), read from the (taskwire.mcp.v1.tool)
// option the proto declares. The worker's interceptors and the services
// that check a rule a second time read the same Rule, so no rule is typed
// twice.
package methods

import (
	"fmt"
	"strings"
	"sync"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	mcpv1 "github.com/taskwire/taskwire/api/taskwire/mcp/v1"
	"github.com/taskwire/taskwire/internal/caller/authz"
)

// Rule is what the proto declares of one method.
type Rule struct {
	Method string // the full gRPC method name, "/pkg.Service/Method"
	// IsTool tells whether the method carries the tool option; the fields
	// below but Name are empty when it does not.
	IsTool bool
	// Name is the tool's name, or the method's own (e.g. "Check") for a
	// method that is no tool: what refusals name.
	Name    string
	Title   string
	Scope   string // the token scope the tool needs, "" for none
	MinRole string // the weakest role allowed (the option's min_role), "" for any
	Toolset string
}

// Tool returns the MCP tool name of the method, "" if it is not a tool.
func (r Rule) Tool() string {
	if !r.IsTool {
		return ""
	}
	return r.Name
}

// Refusal is the refusal of r to a caller with role on tenant, for the
// sentences of package authz.
func (r Rule) Refusal(role, tenant string) authz.Refusal {
	return authz.Refusal{Role: role, Tenant: tenant, Tool: r.Name, Title: r.Title, Need: r.Scope}
}

// rules caches Lookup: full method name → lookup.
var rules sync.Map

type lookup struct {
	rule Rule
	err  error
}

// Lookup returns the rule of a full method name, reading the protobuf
// registry once per method. A method the registry does not hold is an
// error: callers fail closed, since a method they cannot describe they
// cannot authorize.
func Lookup(fullMethod string) (Rule, error) {
	if v, ok := rules.Load(fullMethod); ok {
		l := v.(lookup)
		return l.rule, l.err
	}
	r, err := read(fullMethod)
	rules.Store(fullMethod, lookup{r, err})
	return r, err
}

// Must is Lookup for a method the program serves, such as a service's
// own: a method missing from the registry is a bug, so it panics.
func Must(fullMethod string) Rule {
	r, err := Lookup(fullMethod)
	if err != nil {
		panic(err)
	}
	return r
}

// read reads the tool option of "/pkg.Service/Method".
func read(fullMethod string) (Rule, error) {
	name := strings.Replace(strings.TrimPrefix(fullMethod, "/"), "/", ".", 1)
	d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(name))
	if err != nil {
		return Rule{}, fmt.Errorf("method %s not in the protobuf registry: %w", name, err)
	}
	md, ok := d.(protoreflect.MethodDescriptor)
	if !ok {
		return Rule{}, fmt.Errorf("%s is not a method", name)
	}
	r := Rule{Method: fullMethod, Name: string(md.Name())}
	tool, _ := proto.GetExtension(md.Options(), mcpv1.E_Tool).(*mcpv1.Tool)
	if tool == nil {
		return r, nil
	}
	r.IsTool, r.Name, r.Title = true, tool.GetName(), tool.GetTitle()
	r.Scope, r.MinRole, r.Toolset = tool.GetScope(), tool.GetMinRole(), tool.GetToolset()
	return r, nil
}
