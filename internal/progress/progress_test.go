package progress

import (
	"context"
	"testing"
)

func TestReport(t *testing.T) {
	Report(context.Background(), 1, 2, "no reporter: nothing happens")
	var got []float64
	ctx := NewContext(context.Background(), func(done, total float64, msg string) {
		got = append(got, done)
	})
	Report(ctx, 1, 3, "a")
	Report(ctx, 2, 3, "b")
	if len(got) != 2 || got[0] != 1 || got[1] != 2 {
		t.Errorf("reports = %v, want [1 2]", got)
	}
}
