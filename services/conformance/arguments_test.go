package conformance_test

import (
	"testing"

	conformancev1 "github.com/taskwire/taskwire/api/taskwire/conformance/v1"
)

// TestArgumentFixtures: the fixtures whose interest is their inputSchema
// say what they got, and only what they got.
func TestArgumentFixtures(t *testing.T) {
	svc, _ := newService(t)
	js, err := svc.JsonSchema202012(asReader(), &conformancev1.JsonSchema202012Request{
		Name: "Ada", Address: &conformancev1.JsonSchema202012Request_Address{City: "London"}, ContactMethod: "email", Email: "ada@example.com",
	})
	if got, want := onlyText(t, js.GetOutput()), "Received: name Ada, city London, contact by email, email ada@example.com."; err != nil || got != want {
		t.Errorf("JsonSchema202012 = %q, %v; want %q", got, err, want)
	}
	ch, err := svc.CustomHeaders(asReader(), &conformancev1.CustomHeadersRequest{Region: "Zürich", Priority: 3, Verbose: true})
	if got, want := onlyText(t, ch.GetOutput()), `Received: region "Zürich", priority 3, verbose true.`; err != nil || got != want {
		t.Errorf("CustomHeaders = %q, %v; want %q", got, err, want)
	}
}
