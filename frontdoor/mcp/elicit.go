package mcp

// ElicitURL is the params of a URL-mode elicitation/create: it asks the
// person at the client to open URL, where something is done outside the
// conversation (a person of the tenant approving a call in the console).
// 2026-07-28 (ElicitRequestURLParams) has mode, message and url only: the
// server tracks the flow in its requestState. 2025-11-25 also requires an
// elicitationId, which its notifications/elicitation/complete names when
// the flow is done; ElicitationID holds it for that era (Legacy), and is
// not written in 2026-07-28's shape.
type ElicitURL struct {
	Mode          string `json:"mode"` // always "url"
	Message       string `json:"message"`
	URL           string `json:"url"`
	ElicitationID string `json:"-"`
}

// NewElicitURL returns the params asking to open url, tracked as id.
func NewElicitURL(message, url, id string) ElicitURL {
	return ElicitURL{Mode: "url", Message: message, URL: url, ElicitationID: id}
}

// Legacy is p in 2025-11-25's shape, with its elicitationId.
func (p ElicitURL) Legacy() any {
	return struct {
		Mode          string `json:"mode"`
		ElicitationID string `json:"elicitationId"`
		Message       string `json:"message"`
		URL           string `json:"url"`
	}{p.Mode, p.ElicitationID, p.Message, p.URL}
}

// MethodElicitationComplete is 2025-11-25's notification that a URL-mode
// elicitation's flow is done (notifications/elicitation/complete).
const MethodElicitationComplete = "notifications/elicitation/complete"

// ElicitationComplete is the params of MethodElicitationComplete.
type ElicitationComplete struct {
	ElicitationID string `json:"elicitationId"`
}
