package conformance

import (
	"context"
	"strings"

	mcpv1 "github.com/taskwire/taskwire/api/taskwire/mcp/v1"
)

// completionRef names an argument that has suggestions.
type completionRef struct{ refType, refName, argument string }

// suggestions are the values Complete offers, by argument.
var suggestions = map[completionRef][]string{
	{"ref/prompt", "test_prompt_with_arguments", "arg1"}: {"paris", "park", "party"},
	{"ref/prompt", "test_prompt_with_arguments", "arg2"}: {"blue", "green", "red"},
	{"ref/resource", templateURI, "id"}:                  {"1", "123", "42"},
}

// Complete offers the suggestions of an argument that start with what the
// user typed, ignoring case; an argument without suggestions gets none.
func (s *Service) Complete(_ context.Context, req *mcpv1.CompleteRequest) (*mcpv1.CompleteResponse, error) {
	prefix := strings.ToLower(req.GetValue())
	resp := &mcpv1.CompleteResponse{}
	for _, v := range suggestions[completionRef{req.GetRefType(), req.GetRefName(), req.GetArgument()}] {
		if strings.HasPrefix(strings.ToLower(v), prefix) {
			resp.Values = append(resp.Values, v)
		}
	}
	resp.Total = int32(len(resp.Values))
	return resp, nil
}
