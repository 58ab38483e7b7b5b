package access

import "testing"

func TestToolsetSentence(t *testing.T) {
	for _, tc := range []struct {
		tool, toolset string
		want          string
	}{
		{"work_next", "work", "This token is limited to the toolsets tasks, comments, and work_next is in the work toolset; ask an admin for a token that includes work."},
		{"test_simple_text", "conformance", "This token is limited to the toolsets tasks, comments, and test_simple_text is in the conformance toolset, which no token can be limited to; use a token without a toolset limit."},
		{"odd_tool", "", "This token is limited to the toolsets tasks, comments, and odd_tool belongs to none of them."},
	} {
		if got := ToolsetSentence(tc.tool, tc.toolset, []string{"tasks", "comments"}); got != tc.want {
			t.Errorf("ToolsetSentence(%s, %q) =\n%q\nwant\n%q", tc.tool, tc.toolset, got, tc.want)
		}
	}
	reason, md := Reason(ToolsetForbids("work_next", "work", []string{"tasks", "comments"}))
	if reason != ReasonToolsetForbids || md["toolset"] != "work" || md["toolsets"] != "tasks,comments" || md["tool"] != "work_next" {
		t.Errorf("Reason(ToolsetForbids) = %q %v, want %s with tool, toolset and toolsets", reason, md, ReasonToolsetForbids)
	}
}
