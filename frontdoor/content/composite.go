package content

import (
	"context"
	"errors"
	"slices"

	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/internal/caller/identity"
)

// Source is one backend of a Composite: what frontdoor.ResourceBackend,
// PromptBackend and CompletionBackend ask, which Backend and Remote both
// serve.
type Source interface {
	Resources(ctx context.Context, c identity.Caller) ([]mcp.Resource, error)
	ResourceTemplates(ctx context.Context, c identity.Caller) ([]mcp.ResourceTemplate, error)
	ReadResource(ctx context.Context, c identity.Caller, uri string) ([]mcp.ResourceContents, error)
	Prompts(ctx context.Context, c identity.Caller) ([]mcp.Prompt, error)
	GetPrompt(ctx context.Context, c identity.Caller, req *mcp.PromptRequest) (*mcp.PromptResult, error)
	Complete(ctx context.Context, c identity.Caller, req *mcp.CompleteRequest) (*mcp.Completion, error)
}

var (
	_ Source = (*Backend)(nil)
	_ Source = (*Remote)(nil)
)

// Composite serves several sources as one, so that the front door needs
// one backend per feature. Sources are asked in the order given:
//   - a list (resources, templates, prompts) is every source's list in
//     turn; an entry whose URI, template or name an earlier source listed
//     is left out, since the earlier source is the one that serves it;
//   - resources/read goes to each source until one knows the URI: a
//     *mcp.ResourceNotFoundError moves on to the next;
//   - prompts/get goes to the first source that lists the prompt, and
//     completion to the first that lists the prompt or the template
//     referred to;
//   - any other error of a source is the Composite's: nothing is listed
//     or served in part.
//
// It is safe for concurrent use if its sources are.
type Composite struct {
	sources []Source
}

// NewComposite returns a Composite of sources, in that order.
func NewComposite(sources ...Source) (*Composite, error) {
	if len(sources) == 0 || slices.Contains(sources, nil) {
		return nil, errors.New("content: a Composite needs one source or more, none of them nil")
	}
	return &Composite{sources: slices.Clone(sources)}, nil
}

// Resources returns the resources of every source.
func (cs *Composite) Resources(ctx context.Context, c identity.Caller) ([]mcp.Resource, error) {
	return concat(cs, func(s Source) ([]mcp.Resource, error) { return s.Resources(ctx, c) },
		func(r mcp.Resource) string { return r.URI })
}

// ResourceTemplates returns the templates of every source.
func (cs *Composite) ResourceTemplates(ctx context.Context, c identity.Caller) ([]mcp.ResourceTemplate, error) {
	return concat(cs, func(s Source) ([]mcp.ResourceTemplate, error) { return s.ResourceTemplates(ctx, c) },
		func(t mcp.ResourceTemplate) string { return t.URITemplate })
}

// Prompts returns the prompts of every source.
func (cs *Composite) Prompts(ctx context.Context, c identity.Caller) ([]mcp.Prompt, error) {
	return concat(cs, func(s Source) ([]mcp.Prompt, error) { return s.Prompts(ctx, c) },
		func(p mcp.Prompt) string { return p.Name })
}

// ReadResource returns the contents of uri from the first source that
// has it.
func (cs *Composite) ReadResource(ctx context.Context, c identity.Caller, uri string) ([]mcp.ResourceContents, error) {
	for _, s := range cs.sources {
		contents, err := s.ReadResource(ctx, c, uri)
		var nf *mcp.ResourceNotFoundError
		if !errors.As(err, &nf) {
			return contents, err
		}
	}
	return nil, &mcp.ResourceNotFoundError{URI: uri}
}

// GetPrompt renders the prompt with the source that lists it.
func (cs *Composite) GetPrompt(ctx context.Context, c identity.Caller, req *mcp.PromptRequest) (*mcp.PromptResult, error) {
	s, err := cs.promptSource(ctx, c, req.Name)
	if err != nil {
		return nil, err
	}
	return s.GetPrompt(ctx, c, req)
}

// Complete completes with the source that lists the prompt or template
// req refers to.
func (cs *Composite) Complete(ctx context.Context, c identity.Caller, req *mcp.CompleteRequest) (*mcp.Completion, error) {
	var s Source
	var err error
	if req.RefType == mcp.RefResource {
		s, err = cs.templateSource(ctx, c, req.RefName)
	} else {
		s, err = cs.promptSource(ctx, c, req.RefName)
	}
	if err != nil {
		return nil, err
	}
	return s.Complete(ctx, c, req)
}

func (cs *Composite) promptSource(ctx context.Context, c identity.Caller, name string) (Source, error) {
	s, err := first(cs, func(s Source) (bool, error) {
		ps, err := s.Prompts(ctx, c)
		return slices.ContainsFunc(ps, func(p mcp.Prompt) bool { return p.Name == name }), err
	})
	if s == nil && err == nil {
		err = &jsonrpc.Error{Code: jsonrpc.InvalidParams, Message: "Unknown prompt: " + name, Data: map[string]string{"prompt": name}}
	}
	return s, err
}

func (cs *Composite) templateSource(ctx context.Context, c identity.Caller, uriTemplate string) (Source, error) {
	s, err := first(cs, func(s Source) (bool, error) {
		ts, err := s.ResourceTemplates(ctx, c)
		return slices.ContainsFunc(ts, func(t mcp.ResourceTemplate) bool { return t.URITemplate == uriTemplate }), err
	})
	if s == nil && err == nil {
		err = &jsonrpc.Error{Code: jsonrpc.InvalidParams, Message: "Unknown resource template: " + uriTemplate, Data: map[string]string{"uri": uriTemplate}}
	}
	return s, err
}

// first returns the first source for which has is true, or nil.
func first(cs *Composite, has func(Source) (bool, error)) (Source, error) {
	for _, s := range cs.sources {
		ok, err := has(s)
		if err != nil {
			return nil, err
		}
		if ok {
			return s, nil
		}
	}
	return nil, nil
}

// concat returns the lists of cs's sources one after the other, each key
// once: the first source to list it serves it.
func concat[T any](cs *Composite, list func(Source) ([]T, error), key func(T) string) ([]T, error) {
	var out []T
	seen := map[string]bool{}
	for _, s := range cs.sources {
		items, err := list(s)
		if err != nil {
			return nil, err
		}
		for _, it := range items {
			if k := key(it); !seen[k] {
				seen[k] = true
				out = append(out, it)
			}
		}
	}
	return out, nil
}
