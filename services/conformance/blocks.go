package conformance

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"

	mcpv1 "github.com/taskwire/taskwire/api/taskwire/mcp/v1"
)

// The media of the suite's reference server, byte for byte.
var (
	// redPixel is a 1x1 red PNG.
	redPixel = mustDecode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")
	// silence is a WAV file of one silent sample.
	silence = mustDecode("UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=")
)

func mustDecode(s string) []byte {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		panic("conformance: bad fixture: " + err.Error())
	}
	return b
}

// output is a tool result of blocks.
func output(blocks ...*mcpv1.Content) *mcpv1.ToolOutput {
	return &mcpv1.ToolOutput{Content: blocks}
}

// textOutput is a tool result of one text block.
func textOutput(s string) *mcpv1.ToolOutput { return output(text(s)) }

func text(s string) *mcpv1.Content {
	return &mcpv1.Content{Block: &mcpv1.Content_Text{Text: s}}
}

func image(data []byte, mime string) *mcpv1.Content {
	return &mcpv1.Content{Block: &mcpv1.Content_Image{Image: &mcpv1.Media{Data: data, MimeType: mime}}}
}

func audio(data []byte, mime string) *mcpv1.Content {
	return &mcpv1.Content{Block: &mcpv1.Content_Audio{Audio: &mcpv1.Media{Data: data, MimeType: mime}}}
}

// embedded is a resource block holding text.
func embedded(uri, mime, body string) *mcpv1.Content {
	return &mcpv1.Content{Block: &mcpv1.Content_Resource{Resource: textContents(uri, mime, body)}}
}

func textContents(uri, mime, body string) *mcpv1.ResourceContents {
	return &mcpv1.ResourceContents{Uri: uri, MimeType: mime, Body: &mcpv1.ResourceContents_Text{Text: body}}
}

func blobContents(uri, mime string, data []byte) *mcpv1.ResourceContents {
	return &mcpv1.ResourceContents{Uri: uri, MimeType: mime, Body: &mcpv1.ResourceContents_Blob{Blob: data}}
}

// compactJSON renders v as JSON the way JavaScript's JSON.stringify does
// for the plain values of an answer: no spaces, no HTML escaping.
func compactJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "{}"
	}
	return strings.TrimSuffix(b.String(), "\n")
}
