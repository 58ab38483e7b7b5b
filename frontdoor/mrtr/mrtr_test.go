package mrtr_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/structpb"

	mcpv1 "github.com/taskwire/taskwire/api/taskwire/mcp/v1"
	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/frontdoor/mrtr"
	"github.com/taskwire/taskwire/frontdoor/sealed"
)

var start = time.Unix(1_800_000_000, 0)

// newRounds returns Rounds over a fixed key whose clock the test moves.
func newRounds(t *testing.T) (*mrtr.Rounds, *time.Time) {
	t.Helper()
	box, err := sealed.NewBox(bytes.Repeat([]byte{3}, sealed.KeySize))
	if err != nil {
		t.Fatal(err)
	}
	now := start
	return &mrtr.Rounds{Box: box, Now: func() time.Time { return now }}, &now
}

func mustStruct(t *testing.T, m map[string]any) *structpb.Struct {
	t.Helper()
	s, err := structpb.NewStruct(m)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var binding = mrtr.Binding{Tenant: "acme", Member: 7, Target: "tools/call test_x", Args: json.RawMessage(`{"a":1,"b":"two"}`)}

const allCaps = `{"elicitation":{},"sampling":{},"roots":{"listChanged":true}}`

// nameRound is a worker's first round: a name, please.
func nameRound(t *testing.T) *mcpv1.InputRequired {
	return &mcpv1.InputRequired{
		Requests: map[string]*mcpv1.InputRequest{"name": {Method: "elicitation/create", Params: mustStruct(t, map[string]any{"message": "Your name?"})}},
		State:    []byte("round-1"),
	}
}

func TestRoundTrip(t *testing.T) {
	r, _ := newRounds(t)
	res, err := r.Required(binding, nameRound(t), json.RawMessage(allCaps))
	if err != nil {
		t.Fatalf("Required = %v", err)
	}
	if got := res.InputRequests["name"]; got.Method != "elicitation/create" || got.Params.(map[string]any)["message"] != "Your name?" {
		t.Errorf("input request = %+v, want the worker's elicitation", got)
	}
	if res.RequestState == "" || strings.Contains(res.RequestState, "round-1") {
		t.Errorf("requestState = %q, want a sealed, opaque string", res.RequestState)
	}

	// The retry sends the same arguments in another order and layout.
	args := mrtr.Binding{Tenant: "acme", Member: 7, Target: "tools/call test_x", Args: json.RawMessage(` {"b":"two", "a":1} `)}
	in, err := r.Input(args, json.RawMessage(allCaps), json.RawMessage(`{"name":{"action":"accept","content":{"name":"Ada"}}}`), res.RequestState)
	if err != nil {
		t.Fatalf("Input = %v", err)
	}
	want := &mcpv1.ClientInput{
		Responses: map[string]*structpb.Struct{"name": mustStruct(t, map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}})},
		State:     []byte("round-1"),
		Capabilities: mustStruct(t, map[string]any{
			"elicitation": map[string]any{}, "sampling": map[string]any{}, "roots": map[string]any{"listChanged": true},
		}),
		Retry: true,
	}
	if diff := cmp.Diff(want, in, protocmp.Transform()); diff != "" {
		t.Errorf("Input (-want +got):\n%s", diff)
	}
}

func TestInputFirstCall(t *testing.T) {
	r, _ := newRounds(t)
	for _, tc := range []struct {
		name      string
		caps      string
		responses string
		want      *mcpv1.ClientInput
	}{
		{"no capabilities", ``, ``, &mcpv1.ClientInput{Capabilities: &structpb.Struct{}}},
		{"capabilities", `{"sampling":{}}`, `null`,
			&mcpv1.ClientInput{Capabilities: mustStruct(t, map[string]any{"sampling": map[string]any{}})}},
		{"answers without a state", `{}`, `{"k":{"roots":[]}}`, &mcpv1.ClientInput{
			Capabilities: &structpb.Struct{},
			Responses:    map[string]*structpb.Struct{"k": mustStruct(t, map[string]any{"roots": []any{}})},
			Retry:        true,
		}},
	} {
		in, err := r.Input(binding, json.RawMessage(tc.caps), json.RawMessage(tc.responses), "")
		if err != nil {
			t.Errorf("%s: Input = %v", tc.name, err)
			continue
		}
		if diff := cmp.Diff(tc.want, in, protocmp.Transform()); diff != "" {
			t.Errorf("%s: Input (-want +got):\n%s", tc.name, diff)
		}
	}
}

// TestStateRefused: a state that was altered, expired or issued for
// another caller, request or arguments is refused with -32602, as are
// answers that are not an object of objects.
func TestStateRefused(t *testing.T) {
	r, now := newRounds(t)
	res, err := r.Required(binding, nameRound(t), json.RawMessage(allCaps))
	if err != nil {
		t.Fatal(err)
	}
	state := res.RequestState
	with := func(f func(*mrtr.Binding)) mrtr.Binding {
		b := binding
		f(&b)
		return b
	}
	tampered := []byte(state)
	tampered[len(tampered)-3] ^= 1
	for _, tc := range []struct {
		name      string
		b         mrtr.Binding
		state     string
		responses string
		at        time.Duration
	}{
		{"tampered", binding, string(tampered), `{}`, 0},
		{"not sealed", binding, "forged", `{}`, 0},
		{"foreign tenant", with(func(b *mrtr.Binding) { b.Tenant = "globex" }), state, `{}`, 0},
		{"foreign member", with(func(b *mrtr.Binding) { b.Member = 8 }), state, `{}`, 0},
		{"foreign target", with(func(b *mrtr.Binding) { b.Target = "tools/call test_y" }), state, `{}`, 0},
		{"prompt target", with(func(b *mrtr.Binding) { b.Target = "prompts/get test_x" }), state, `{}`, 0},
		{"altered arguments", with(func(b *mrtr.Binding) { b.Args = json.RawMessage(`{"a":2,"b":"two"}`) }), state, `{}`, 0},
		{"expired", binding, state, `{}`, mrtr.DefaultTTL + 2*time.Second},
		{"answers not an object", binding, state, `[1]`, 0},
		{"answer not an object", binding, state, `{"name":"Ada"}`, 0},
		{"answer null", binding, state, `{"name":null}`, 0},
		{"answers without a state, not an object", binding, "", `"x"`, 0},
	} {
		*now = start.Add(tc.at)
		in, err := r.Input(tc.b, json.RawMessage(allCaps), json.RawMessage(tc.responses), tc.state)
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != jsonrpc.InvalidParams {
			t.Errorf("%s: Input = %v, %v; want a -32602 error", tc.name, in, err)
		}
	}
	*now = start.Add(mrtr.DefaultTTL - time.Second)
	if _, err := r.Input(binding, json.RawMessage(allCaps), nil, state); err != nil {
		t.Errorf("Input just before expiry = %v, want the state accepted", err)
	}
}

// TestMissingCapability: a round may ask only for what the request
// declared; the error names what is missing, for the client to show, and
// lists it as a ClientCapabilities object.
func TestMissingCapability(t *testing.T) {
	r, _ := newRounds(t)
	ask := func(methods ...string) *mcpv1.InputRequired {
		ir := &mcpv1.InputRequired{Requests: map[string]*mcpv1.InputRequest{}}
		for i, m := range methods {
			req := &mcpv1.InputRequest{Method: m}
			if m == "elicitation/create (url)" {
				req = &mcpv1.InputRequest{Method: "elicitation/create", Params: mustStruct(t, map[string]any{"mode": "url", "url": "https://example.com"})}
			}
			ir.Requests[string(rune('a'+i))] = req
		}
		return ir
	}
	for _, tc := range []struct {
		name    string
		caps    string
		ir      *mcpv1.InputRequired
		want    string // the error data; empty for no error
		mention string // the message names this
	}{
		{"sampling undeclared", `{"elicitation":{}}`, ask("sampling/createMessage"), `{"requiredCapabilities":{"sampling":{}}}`, "sampling"},
		{"roots undeclared", `{}`, ask("roots/list"), `{"requiredCapabilities":{"roots":{}}}`, "roots"},
		{"no capabilities at all", ``, ask("elicitation/create"), `{"requiredCapabilities":{"elicitation":{"form":{}}}}`, "elicitation"},
		{"form asked, url declared", `{"elicitation":{"url":{}}}`, ask("elicitation/create"), `{"requiredCapabilities":{"elicitation":{"form":{}}}}`, "elicitation"},
		{"url asked, form declared", `{"elicitation":{}}`, ask("elicitation/create (url)"), `{"requiredCapabilities":{"elicitation":{"url":{}}}}`, "elicitation"},
		{"two missing", `{"elicitation":{}}`, ask("sampling/createMessage", "roots/list", "elicitation/create"),
			`{"requiredCapabilities":{"roots":{},"sampling":{}}}`, "roots, sampling"},
		{"capability not an object", `{"sampling":true}`, ask("sampling/createMessage"), `{"requiredCapabilities":{"sampling":{}}}`, "sampling"},
		{"all declared", allCaps, ask("sampling/createMessage", "roots/list", "elicitation/create"), "", ""},
		{"form declared explicitly", `{"elicitation":{"form":{},"url":{}}}`, ask("elicitation/create", "elicitation/create (url)"), "", ""},
	} {
		res, err := r.Required(binding, tc.ir, json.RawMessage(tc.caps))
		if tc.want == "" {
			if err != nil || res == nil || len(res.InputRequests) != len(tc.ir.Requests) {
				t.Errorf("%s: Required = %+v, %v; want every request passed on", tc.name, res, err)
			}
			continue
		}
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != jsonrpc.MissingRequiredClientCapability {
			t.Errorf("%s: Required = %+v, %v; want a -32021 error", tc.name, res, err)
			continue
		}
		data, _ := json.Marshal(je.Data)
		if string(data) != tc.want {
			t.Errorf("%s: error data = %s, want %s", tc.name, data, tc.want)
		}
		if !strings.Contains(je.Message, tc.mention) || !strings.Contains(je.Message, binding.Target) {
			t.Errorf("%s: error message = %q, want it to name %q and %q", tc.name, je.Message, tc.mention, binding.Target)
		}
	}
}

func TestRequiredRefusesWorkerBugs(t *testing.T) {
	r, _ := newRounds(t)
	_, err := r.Required(binding, &mcpv1.InputRequired{Requests: map[string]*mcpv1.InputRequest{"x": {Method: "tools/call"}}}, json.RawMessage(allCaps))
	var je *jsonrpc.Error
	if err == nil || errors.As(err, &je) || !strings.Contains(err.Error(), "tools/call") {
		t.Errorf("Required(method tools/call) = %v, want an internal error naming the method", err)
	}
	var none *mrtr.Rounds
	if _, err := none.Required(binding, nameRound(t), json.RawMessage(allCaps)); err == nil || errors.As(err, &je) {
		t.Errorf("Required without keys = %v, want an internal error", err)
	}
}

// TestRequiredParams: params absent from the worker's request are sent as
// an empty object, since JSON null is no valid params.
func TestRequiredParams(t *testing.T) {
	r, _ := newRounds(t)
	res, err := r.Required(binding, &mcpv1.InputRequired{Requests: map[string]*mcpv1.InputRequest{"r": {Method: "roots/list"}}}, json.RawMessage(allCaps))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(res.InputRequests)
	if want := `{"r":{"method":"roots/list","params":{}}}`; string(raw) != want {
		t.Errorf("input requests = %s, want %s", raw, want)
	}
}

func TestArgsDigest(t *testing.T) {
	for _, tc := range []struct{ a, b string }{
		{`{"a":1,"b":[1,2]}`, ` { "b" : [1, 2], "a": 1 } `},
		{``, `null`},
		{`null`, ` {} `},
	} {
		da, errA := mrtr.ArgsDigest(json.RawMessage(tc.a))
		db, errB := mrtr.ArgsDigest(json.RawMessage(tc.b))
		if errA != nil || errB != nil || da != db {
			t.Errorf("ArgsDigest(%s) = %s, %v; ArgsDigest(%s) = %s, %v; want equal", tc.a, da, errA, tc.b, db, errB)
		}
	}
	x, _ := mrtr.ArgsDigest(json.RawMessage(`{"a":[1,2]}`))
	y, _ := mrtr.ArgsDigest(json.RawMessage(`{"a":[2,1]}`))
	if x == y {
		t.Error("ArgsDigest ignores the order of array items, which carries meaning")
	}
	if _, err := mrtr.ArgsDigest(json.RawMessage(`{`)); err == nil {
		t.Error("ArgsDigest({) = nil error, want the JSON error")
	}
}
