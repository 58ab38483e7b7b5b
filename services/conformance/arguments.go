package conformance

import (
	"context"
	"fmt"
	"strings"

	conformancev1 "github.com/taskwire/taskwire/api/taskwire/conformance/v1"
)

// JsonSchema202012 says what it got. Its interest is its inputSchema,
// written by hand in the contract: the front door has already held the
// arguments to it, phone or email included.
func (s *Service) JsonSchema202012(_ context.Context, req *conformancev1.JsonSchema202012Request) (*conformancev1.JsonSchema202012Response, error) {
	var parts []string
	add := func(what, v string) {
		if v != "" {
			parts = append(parts, what+" "+v)
		}
	}
	add("name", req.GetName())
	if a := req.GetAddress(); a != nil {
		add("street", a.GetStreet())
		add("city", a.GetCity())
	}
	add("contact by", req.GetContactMethod())
	add("phone", req.GetPhone())
	add("email", req.GetEmail())
	return &conformancev1.JsonSchema202012Response{Output: textOutput("Received: " + strings.Join(parts, ", ") + ".")}, nil
}

// CustomHeaders says what it got. Its interest is the Mcp-Param headers
// its arguments travel in, which the front door has compared with them
// before the call reached here.
func (s *Service) CustomHeaders(_ context.Context, req *conformancev1.CustomHeadersRequest) (*conformancev1.CustomHeadersResponse, error) {
	return &conformancev1.CustomHeadersResponse{Output: textOutput(fmt.Sprintf(
		"Received: region %q, priority %d, verbose %t.", req.GetRegion(), req.GetPriority(), req.GetVerbose()))}, nil
}
