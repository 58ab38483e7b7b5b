package conformance

import (
	"context"
	"strings"

	mcpv1 "github.com/taskwire/taskwire/api/taskwire/mcp/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
)

// fixedResource is a resource whose contents never change.
type fixedResource struct {
	res      *mcpv1.Resource
	contents *mcpv1.ResourceContents
}

var fixedResources = []fixedResource{
	{
		&mcpv1.Resource{Uri: "test://static-text", Name: "static-text", Title: "Static Text Resource",
			Description: "A static text resource for testing", MimeType: "text/plain"},
		textContents("test://static-text", "text/plain", "This is the content of the static text resource."),
	},
	{
		&mcpv1.Resource{Uri: "test://static-binary", Name: "static-binary", Title: "Static Binary Resource",
			Description: "A static binary resource (a PNG image) for testing", MimeType: "image/png"},
		blobContents("test://static-binary", "image/png", redPixel),
	},
	{
		&mcpv1.Resource{Uri: "test://watched-resource", Name: "watched-resource", Title: "Watched Resource",
			Description: "A text resource clients may subscribe to for testing", MimeType: "text/plain"},
		textContents("test://watched-resource", "text/plain", "Watched resource content"),
	},
}

// The resource template: test://template/{id}/data, for any id that is
// one non-empty path segment.
const (
	templateURI    = "test://template/{id}/data"
	templatePrefix = "test://template/"
	templateSuffix = "/data"
)

var template = &mcpv1.ResourceTemplate{
	UriTemplate: templateURI, Name: "template", Title: "Resource Template",
	Description: "A resource template with parameter substitution: test://template/{id}/data is JSON naming the id",
	MimeType:    "application/json",
}

// ListResources returns the fixed resources and the template.
func (s *Service) ListResources(context.Context, *mcpv1.ListResourcesRequest) (*mcpv1.ListResourcesResponse, error) {
	resp := &mcpv1.ListResourcesResponse{Templates: []*mcpv1.ResourceTemplate{template}}
	for _, r := range fixedResources {
		resp.Resources = append(resp.Resources, r.res)
	}
	return resp, nil
}

// ReadResource returns a fixed resource or an instance of the template.
func (s *Service) ReadResource(_ context.Context, req *mcpv1.ReadResourceRequest) (*mcpv1.ReadResourceResponse, error) {
	uri := req.GetUri()
	for _, r := range fixedResources {
		if r.res.GetUri() == uri {
			return &mcpv1.ReadResourceResponse{Contents: []*mcpv1.ResourceContents{r.contents}}, nil
		}
	}
	if id, ok := templateID(uri); ok {
		body := compactJSON(struct {
			ID           string `json:"id"`
			TemplateTest bool   `json:"templateTest"`
			Data         string `json:"data"`
		}{id, true, "Data for ID: " + id})
		return &mcpv1.ReadResourceResponse{Contents: []*mcpv1.ResourceContents{textContents(uri, "application/json", body)}}, nil
	}
	return nil, domainerr.New(domainerr.NotFound, "No resource %q: resources/list and resources/templates/list name the ones there are", uri)
}

// templateID returns the id of a URI of the template.
func templateID(uri string) (string, bool) {
	rest, ok := strings.CutPrefix(uri, templatePrefix)
	if !ok {
		return "", false
	}
	id, ok := strings.CutSuffix(rest, templateSuffix)
	if !ok || id == "" || strings.Contains(id, "/") {
		return "", false
	}
	return id, true
}
