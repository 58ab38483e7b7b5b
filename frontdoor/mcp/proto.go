package mcp

import (
	"encoding/base64"

	mcpv1 "github.com/taskwire/taskwire/api/taskwire/mcp/v1"
)

// ContentFromProto converts a worker's content block. Bytes become base64
// (standard encoding, as MCP's "format": "byte" means). A block with none
// of its oneof set becomes empty text: a worker's omission should not
// fail the whole result.
func ContentFromProto(c *mcpv1.Content) Content {
	switch b := c.GetBlock().(type) {
	case *mcpv1.Content_Image:
		return ImageContent(base64.StdEncoding.EncodeToString(b.Image.GetData()), b.Image.GetMimeType())
	case *mcpv1.Content_Audio:
		return AudioContent(base64.StdEncoding.EncodeToString(b.Audio.GetData()), b.Audio.GetMimeType())
	case *mcpv1.Content_Resource:
		return ResourceContent(ResourceFromProto(b.Resource))
	}
	return TextContent(c.GetText())
}

// ContentsFromProto converts content blocks in order. The result is never
// nil, since content is a required member of the results that carry it.
func ContentsFromProto(cs []*mcpv1.Content) []Content {
	out := make([]Content, 0, len(cs))
	for _, c := range cs {
		out = append(out, ContentFromProto(c))
	}
	return out
}

// ResourceFromProto converts a resource's contents for embedding in a
// content block.
func ResourceFromProto(r *mcpv1.ResourceContents) EmbeddedResource {
	e := EmbeddedResource{URI: r.GetUri(), MIMEType: r.GetMimeType(), Text: r.GetText()}
	if blob, ok := r.GetBody().(*mcpv1.ResourceContents_Blob); ok {
		e.Blob = base64.StdEncoding.EncodeToString(blob.Blob)
	}
	return e
}
