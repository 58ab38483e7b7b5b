package domainerr

import (
	"errors"
	"fmt"
	"io"
	"testing"
)

func TestKindAndMessageThroughWrapping(t *testing.T) {
	err := fmt.Errorf("create task: %w", New(NotFound, "No task %s in tenant %s", "T-9", "acme"))
	if KindOf(err) != NotFound {
		t.Errorf("KindOf = %v, want not found", KindOf(err))
	}
	if Message(err) != "No task T-9 in tenant acme" {
		t.Errorf("Message = %q", Message(err))
	}
	cause := Wrap(Internal, io.ErrUnexpectedEOF, "reading tasks failed")
	if !errors.Is(cause, io.ErrUnexpectedEOF) {
		t.Error("Wrap lost its cause")
	}
	if KindOf(io.EOF) != Internal || Message(io.EOF) != "" {
		t.Errorf("a plain error: kind %v message %q, want internal and none", KindOf(io.EOF), Message(io.EOF))
	}
}
