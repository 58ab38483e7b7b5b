package conformance_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"google.golang.org/protobuf/types/known/structpb"

	mcpv1 "github.com/taskwire/taskwire/api/taskwire/mcp/v1"
	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/events"
	"github.com/taskwire/taskwire/services/conformance"
)

// published records what a Service announced; fail makes Publish fail.
type published struct {
	mu   sync.Mutex
	got  []announcement
	fail error
}

type announcement struct {
	tenant string
	ev     events.Event
}

func (p *published) Publish(tenant string, ev events.Event) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fail != nil {
		return p.fail
	}
	p.got = append(p.got, announcement{tenant, ev})
	return nil
}

func newService(t *testing.T) (*conformance.Service, *published) {
	t.Helper()
	pub := &published{}
	svc, err := conformance.New(conformance.Config{Events: pub})
	if err != nil {
		t.Fatal(err)
	}
	return svc, pub
}

// asReader is a context of a member of acme whose token can only read.
func asReader() context.Context {
	return identity.NewContext(context.Background(), identity.Caller{
		Tenant: "acme", Member: 7, Scopes: []string{authz.ScopeRead}, TokenID: "test-reader",
	})
}

// mustStruct converts a fixture map, or fails the test.
func mustStruct(t *testing.T, m map[string]any) *structpb.Struct {
	t.Helper()
	s, err := structpb.NewStruct(m)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// answers is ClientInput for a retry carrying responses and state.
func answers(t *testing.T, state string, responses map[string]map[string]any) *mcpv1.ClientInput {
	t.Helper()
	in := &mcpv1.ClientInput{Retry: true, Responses: map[string]*structpb.Struct{}}
	if state != "" {
		in.State = []byte(state)
	}
	for k, v := range responses {
		in.Responses[k] = mustStruct(t, v)
	}
	return in
}

// declaring is the ClientInput of a first call from a client declaring
// the capabilities named.
func declaring(t *testing.T, capabilities ...string) *mcpv1.ClientInput {
	t.Helper()
	m := map[string]any{}
	for _, c := range capabilities {
		m[c] = map[string]any{}
	}
	return &mcpv1.ClientInput{Capabilities: mustStruct(t, m)}
}

func accept(content map[string]any) map[string]any {
	return map[string]any{"action": "accept", "content": content}
}

func sampled(text string) map[string]any {
	return map[string]any{"role": "assistant", "model": "test-model", "stopReason": "endTurn",
		"content": map[string]any{"type": "text", "text": text}}
}

func roots(uris ...string) map[string]any {
	var rs []any
	for _, u := range uris {
		rs = append(rs, map[string]any{"uri": u, "name": "root"})
	}
	return map[string]any{"roots": rs}
}

// onlyText returns the text of an output of one text block, or fails.
func onlyText(t *testing.T, out *mcpv1.ToolOutput) string {
	t.Helper()
	if len(out.GetContent()) != 1 || out.GetContent()[0].GetBlock() == nil {
		t.Fatalf("output = %v, want one text block", out)
	}
	b, ok := out.GetContent()[0].GetBlock().(*mcpv1.Content_Text)
	if !ok {
		t.Fatalf("output = %v, want one text block", out)
	}
	return b.Text
}

var errBusDown = errors.New("nats: connection closed")
