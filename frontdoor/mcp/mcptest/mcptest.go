// Package mcptest checks, in tests, that what a server sends is a message of
// the MCP revision it speaks: each JSON-RPC message is validated against the
// official JSON schema of that revision. The schemas are embedded, copied
// from the specification repository, so that tests in any package of the
// module can use them without depending on files outside it.
package mcptest

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/frontdoor/mcp"
)

// Version is the MCP revision the unversioned helpers validate against.
const Version = mcp.LatestVersion

// Versions are the revisions whose schemas are embedded, newest first.
var Versions = []string{mcp.Version20260728, mcp.Version20251125, mcp.Version20250618}

// TasksExtension names, as a version for ValidateMessageAt, the schema
// of the MCP Tasks extension (io.modelcontextprotocol/tasks), copied from
// the extension's repository (modelcontextprotocol/ext-tasks,
// schema/draft/schema.json): its definitions (CreateTaskResult,
// GetTaskResult, UpdateTaskResult, CancelTaskResult …) are not in the
// core schema.
const TasksExtension = "tasks-extension"

//go:embed schema/*.json
var schemaFiles embed.FS

// compiled caches one compiler per revision and each definition compiled
// from it, since compiling the full schema takes a noticeable moment.
var compiled = struct {
	sync.Mutex
	compilers map[string]*jsonschema.Compiler
	defsKey   map[string]string // "$defs", or "definitions" in draft-07 schemas (2025-06-18)
	defs      map[string]*jsonschema.Schema
}{compilers: map[string]*jsonschema.Compiler{}, defsKey: map[string]string{}, defs: map[string]*jsonschema.Schema{}}

// ValidateMessage fails t unless raw validates against the definition def
// (a name under $defs, e.g. "JSONRPCErrorResponse" or "DiscoverResult") of
// the 2026-07-28 schema.
func ValidateMessage(t testing.TB, raw []byte, def string) {
	t.Helper()
	ValidateMessageAt(t, Version, raw, def)
}

// ValidateMessageAt is ValidateMessage against the schema of version.
func ValidateMessageAt(t testing.TB, version string, raw []byte, def string) {
	t.Helper()
	if err := Validate(version, raw, def); err != nil {
		t.Errorf("message does not fit %s of %s: %v\nmessage: %s", def, version, err, raw)
	}
}

// Validate reports whether raw validates against the definition def of the
// schema of revision version. def may go deeper than a definition, as in
// "JSONRPCError/properties/error".
func Validate(version string, raw []byte, def string) error {
	sch, err := schemaFor(version, def)
	if err != nil {
		return err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	return sch.Validate(v)
}

// schemaFor returns the compiled definition def of revision version.
func schemaFor(version, def string) (*jsonschema.Schema, error) {
	compiled.Lock()
	defer compiled.Unlock()
	key := version + "#" + def
	if s, ok := compiled.defs[key]; ok {
		return s, nil
	}
	c, err := compilerFor(version)
	if err != nil {
		return nil, err
	}
	s, err := c.Compile(schemaURL(version) + "#/" + compiled.defsKey[version] + "/" + def)
	if err != nil {
		return nil, fmt.Errorf("mcptest: compiling %s of %s: %w", def, version, err)
	}
	compiled.defs[key] = s
	return s, nil
}

// compilerFor returns a compiler holding the embedded schema of version.
// Callers hold compiled's lock.
func compilerFor(version string) (*jsonschema.Compiler, error) {
	if c, ok := compiled.compilers[version]; ok {
		return c, nil
	}
	data, err := schemaFiles.ReadFile("schema/" + version + ".json")
	if err != nil {
		return nil, fmt.Errorf("mcptest: no schema for MCP %s", version)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("mcptest: schema of %s: %w", version, err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(schemaURL(version), doc); err != nil {
		return nil, err
	}
	compiled.defsKey[version] = "$defs"
	if m, ok := doc.(map[string]any); ok && m["definitions"] != nil {
		compiled.defsKey[version] = "definitions"
	}
	compiled.compilers[version] = c
	return c, nil
}

// schemaURL names the embedded schema of version; nothing is fetched from
// it.
func schemaURL(version string) string {
	return "https://schema.invalid/mcp/" + version + "/schema.json"
}

// ValidateServerMessage fails t unless raw is a valid 2026-07-28 message
// that a server may send while answering a request of method: a
// notification (progress, log), an error response (also checked against the
// definition of its code, when the schema has one), or a result (also
// checked against the result definition of method).
func ValidateServerMessage(t testing.TB, raw []byte, method string) {
	t.Helper()
	ValidateServerMessageAt(t, Version, raw, method)
}

// ValidateServerMessageAt is ValidateServerMessage for revision version;
// legacy revisions (before 2026-07-28) have their own checks (legacy.go).
func ValidateServerMessageAt(t testing.TB, version string, raw []byte, method string) {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Errorf("server message is not a JSON object: %v\nmessage: %s", err, raw)
		return
	}
	if version != Version {
		validateLegacy(t, version, raw, m, method)
		return
	}
	switch {
	case m["method"] != nil:
		ValidateMessage(t, raw, "JSONRPCNotification")
		validateNotification(t, version, raw, m["method"])
	case m["error"] != nil:
		ValidateMessage(t, raw, "JSONRPCErrorResponse")
		validateError(t, raw, m["error"])
	default:
		ValidateMessage(t, raw, "JSONRPCResultResponse")
		if validateTaskResult(t, m["result"], method) {
			return
		}
		if def, ok := resultDefs[method]; ok {
			ValidateMessage(t, raw, def)
		}
		validateMRTRResult(t, m["result"], method)
	}
}

// validateTaskResult checks a result of the MCP Tasks extension against
// its schema: a CreateTaskResult (resultType "task", in lieu of the
// method's own result), or the result of a tasks/ method. It reports
// whether raw was one.
func validateTaskResult(t testing.TB, raw []byte, method string) bool {
	t.Helper()
	var r struct{ ResultType string }
	_ = json.Unmarshal(raw, &r)
	def, ok := taskResultDefs[method]
	if r.ResultType == "task" {
		def, ok = "CreateTaskResult", true
	}
	if ok {
		ValidateMessageAt(t, TasksExtension, raw, def)
	}
	return ok
}

// taskResultDefs names the result definition of each method of the MCP
// Tasks extension.
var taskResultDefs = map[string]string{
	"tasks/get":    "GetTaskResult",
	"tasks/update": "UpdateTaskResult",
	"tasks/cancel": "CancelTaskResult",
}

// validateMRTRResult checks the result of a method that may answer
// input_required against the one shape its resultType picks: the response
// definitions accept either shape, and an input_required result needs
// little, so a complete result missing its fields would pass them.
func validateMRTRResult(t testing.TB, raw []byte, method string) {
	t.Helper()
	def, ok := completeDefs[method]
	if !ok {
		return
	}
	var r struct{ ResultType string }
	_ = json.Unmarshal(raw, &r)
	if r.ResultType == "input_required" {
		def = "InputRequiredResult"
	}
	ValidateMessage(t, raw, def)
}

// completeDefs names the complete result of each method that may also
// answer input_required.
var completeDefs = map[string]string{
	"tools/call":     "CallToolResult",
	"prompts/get":    "GetPromptResult",
	"resources/read": "ReadResourceResult",
}

// resultDefs names the response definition of each request method.
var resultDefs = map[string]string{
	"server/discover":          "DiscoverResultResponse",
	"tools/list":               "ListToolsResultResponse",
	"tools/call":               "CallToolResultResponse",
	"prompts/list":             "ListPromptsResultResponse",
	"prompts/get":              "GetPromptResultResponse",
	"resources/list":           "ListResourcesResultResponse",
	"resources/templates/list": "ListResourceTemplatesResultResponse",
	"resources/read":           "ReadResourceResultResponse",
	"completion/complete":      "CompleteResultResponse",
	"subscriptions/listen":     "SubscriptionsListenResultResponse",
}

// validateNotification checks the notifications a server sends about a
// request, which every revision defines.
func validateNotification(t testing.TB, version string, raw, rawMethod []byte) {
	t.Helper()
	switch string(rawMethod) {
	case `"notifications/progress"`:
		ValidateMessageAt(t, version, raw, "ProgressNotification")
	case `"notifications/message"`:
		ValidateMessageAt(t, version, raw, "LoggingMessageNotification")
	}
}

// validateError checks an error response against the definition of its
// code: some definitions cover the whole message, others the error object.
func validateError(t testing.TB, raw, rawErr []byte) {
	t.Helper()
	var e struct{ Code int }
	if json.Unmarshal(rawErr, &e) != nil {
		return // JSONRPCErrorResponse has already said why
	}
	if def, ok := messageErrorDefs[e.Code]; ok {
		ValidateMessage(t, raw, def)
	}
	if def, ok := objectErrorDefs[e.Code]; ok {
		ValidateMessage(t, rawErr, def)
	}
}

var messageErrorDefs = map[int]string{
	jsonrpc.HeaderMismatch:                  "HeaderMismatchError",
	jsonrpc.MissingRequiredClientCapability: "MissingRequiredClientCapabilityError",
	jsonrpc.UnsupportedProtocolVersion:      "UnsupportedProtocolVersionError",
}

var objectErrorDefs = map[int]string{
	jsonrpc.ParseError:     "ParseError",
	jsonrpc.InvalidRequest: "InvalidRequestError",
	jsonrpc.MethodNotFound: "MethodNotFoundError",
	jsonrpc.InvalidParams:  "InvalidParamsError",
	jsonrpc.Internal:       "InternalError",
}
