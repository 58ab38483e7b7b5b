package mcp_test

import (
	"encoding/json"
	"strings"
	"testing"

	mcpv1 "github.com/taskwire/taskwire/api/taskwire/mcp/v1"
	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/frontdoor/mcp/mcptest"
)

// TestContentWire: each block type carries exactly the members MCP's
// schema gives it, in every revision served.
func TestContentWire(t *testing.T) {
	for _, tc := range []struct {
		in   *mcpv1.Content
		want string
		def  string
	}{
		{&mcpv1.Content{Block: &mcpv1.Content_Text{Text: "hi"}}, `{"type":"text","text":"hi"}`, "TextContent"},
		{&mcpv1.Content{Block: &mcpv1.Content_Text{}}, `{"type":"text","text":""}`, "TextContent"},
		{&mcpv1.Content{}, `{"type":"text","text":""}`, "TextContent"},
		{&mcpv1.Content{Block: &mcpv1.Content_Image{Image: &mcpv1.Media{Data: []byte{0xfb, 0xff}, MimeType: "image/png"}}},
			`{"type":"image","data":"+/8=","mimeType":"image/png"}`, "ImageContent"},
		{&mcpv1.Content{Block: &mcpv1.Content_Audio{Audio: &mcpv1.Media{Data: []byte("RIFF"), MimeType: "audio/wav"}}},
			`{"type":"audio","data":"UklGRg==","mimeType":"audio/wav"}`, "AudioContent"},
		{&mcpv1.Content{Block: &mcpv1.Content_Resource{Resource: &mcpv1.ResourceContents{Uri: "test://t", MimeType: "text/plain", Body: &mcpv1.ResourceContents_Text{Text: "body"}}}},
			`{"type":"resource","resource":{"uri":"test://t","mimeType":"text/plain","text":"body"}}`, "EmbeddedResource"},
		{&mcpv1.Content{Block: &mcpv1.Content_Resource{Resource: &mcpv1.ResourceContents{Uri: "test://empty"}}},
			`{"type":"resource","resource":{"uri":"test://empty","text":""}}`, "EmbeddedResource"},
		{&mcpv1.Content{Block: &mcpv1.Content_Resource{Resource: &mcpv1.ResourceContents{Uri: "test://b", Body: &mcpv1.ResourceContents_Blob{Blob: []byte{1, 2, 3}}}}},
			`{"type":"resource","resource":{"uri":"test://b","blob":"AQID"}}`, "EmbeddedResource"},
	} {
		got, err := json.Marshal(mcp.ContentFromProto(tc.in))
		if err != nil {
			t.Errorf("Marshal(ContentFromProto(%v)) = %v", tc.in, err)
			continue
		}
		if string(got) != tc.want {
			t.Errorf("Marshal(ContentFromProto(%v)) = %s, want %s", tc.in, got, tc.want)
		}
		for _, version := range []string{mcp.Version20260728, mcp.Version20251125, mcp.Version20250618} {
			mcptest.ValidateMessageAt(t, version, got, tc.def)
		}
	}
}

func TestContentWireRefusesUnknownTypes(t *testing.T) {
	for _, c := range []mcp.Content{{}, {Type: "resource_link"}, {Type: mcp.ContentResource}} {
		if raw, err := json.Marshal(c); err == nil {
			t.Errorf("Marshal(%+v) = %s, want an error: the client could not read it", c, raw)
		}
	}
}

func TestContentsFromProto(t *testing.T) {
	if got := mcp.ContentsFromProto(nil); got == nil || len(got) != 0 {
		t.Errorf("ContentsFromProto(nil) = %#v, want an empty, non-nil slice", got)
	}
	got := mcp.ContentsFromProto([]*mcpv1.Content{{Block: &mcpv1.Content_Text{Text: "a"}}, {Block: &mcpv1.Content_Text{Text: "b"}}})
	var texts []string
	for _, c := range got {
		texts = append(texts, c.Text)
	}
	if strings.Join(texts, ",") != "a,b" {
		t.Errorf("ContentsFromProto(a, b) texts = %q, want a, b in order", texts)
	}
}
