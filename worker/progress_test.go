package worker

import (
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/taskwire/taskwire/internal/events/natstest"

	"github.com/nats-io/nats.go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/poll"
	"github.com/taskwire/taskwire/internal/progress"
)

func TestProgressEmbeddedNATS(t *testing.T) {
	testProgress(t, natstest.Start(t))
}

func TestProgressRealNATS(t *testing.T) {
	url := os.Getenv("TASKWIRE_TEST_NATS")
	if url == "" {
		t.Skip("TASKWIRE_TEST_NATS is not set (e.g. nats://127.0.0.1:4222); skipping the test against a real NATS server")
	}
	testProgress(t, url)
}

// testProgress calls ImportTasks asking for progress and checks that the
// events are on the subject, in order, before the response, and that the
// trailer counts them. Reports that do not rise are dropped.
func testProgress(t *testing.T, url string) {
	w := startWorker(t, func(c *Config) { c.NATS = natstest.Connect(t, url) })
	w.board.reports = []float64{1, 1, 2, 0.5, 3}
	subject := progress.SubjectPrefix + "fd-test." + strconv.FormatInt(time.Now().UnixNano(), 36)
	subConn := natstest.Connect(t, url)
	sub := subscribe(t, subConn, subject)

	trailer := callImport(t, w, subject)
	if got := trailer.Get(progress.TrailerCount); len(got) != 1 || got[0] != "3" {
		t.Fatalf("trailer %s = %q, want [3]", progress.TrailerCount, got)
	}
	// Published after the response: it must come after every event.
	if err := subConn.Publish(subject, []byte("end")); err != nil {
		t.Fatal(err)
	}
	for i, want := range []float64{1, 2, 3} {
		ev := nextEvent(t, sub)
		if ev.GetSeq() != uint32(i+1) || ev.GetProgress() != want || ev.GetTotal() != 3 {
			t.Errorf("event %d = %v, want seq %d progress %g total 3", i, ev, i+1, want)
		}
	}
	if msg, err := sub.NextMsg(10 * time.Second); err != nil || string(msg.Data) != "end" {
		t.Errorf("after 3 events got %v, %v; want the end marker", msg, err)
	}
}

func subscribe(t *testing.T, nc *nats.Conn, subject string) *nats.Subscription {
	t.Helper()
	sub, err := nc.SubscribeSync(subject)
	if err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil { // the server knows the subscription
		t.Fatal(err)
	}
	return sub
}

func nextEvent(t *testing.T, sub *nats.Subscription) *taskwirev1.ProgressEvent {
	t.Helper()
	msg, err := sub.NextMsg(10 * time.Second)
	if err != nil {
		t.Fatalf("waiting for a progress event: %v", err)
	}
	ev := &taskwirev1.ProgressEvent{}
	if err := proto.Unmarshal(msg.Data, ev); err != nil {
		t.Fatalf("event %q: %v", msg.Data, err)
	}
	return ev
}

func callImport(t *testing.T, w *testWorker, subject string) metadata.MD {
	t.Helper()
	ctx := metadata.AppendToOutgoingContext(asCaller("write"), progress.MDSubject, subject)
	var trailer metadata.MD
	req := &taskwirev1.ImportTasksRequest{Tasks: []*taskwirev1.TaskDraft{{Title: "a"}}}
	if _, err := w.client.ImportTasks(ctx, req, grpc.Trailer(&trailer)); err != nil {
		t.Fatalf("ImportTasks = %v", err)
	}
	return trailer
}

func TestProgressWithoutNATS(t *testing.T) {
	w := startWorker(t, nil)
	w.board.reports = []float64{1, 2}
	trailer := callImport(t, w, progress.SubjectPrefix+"fd.call")
	if got := trailer.Get(progress.TrailerCount); len(got) != 1 || got[0] != "0" {
		t.Errorf("trailer %s = %q, want [0] (reports dropped)", progress.TrailerCount, got)
	}
}

func TestProgressSubjectChecked(t *testing.T) {
	w := startWorker(t, nil)
	for _, subj := range []string{"other.fd.call", progress.SubjectPrefix, progress.SubjectPrefix + "fd.*",
		progress.SubjectPrefix + ">", progress.SubjectPrefix + "fd..call", progress.SubjectPrefix + "fd call"} {
		ctx := metadata.AppendToOutgoingContext(asCaller("write"), progress.MDSubject, subj)
		_, err := w.client.ImportTasks(ctx, &taskwirev1.ImportTasksRequest{})
		if got := status.Code(err); got != codes.InvalidArgument {
			t.Errorf("ImportTasks with subject %q: code = %v, want InvalidArgument", subj, got)
		}
	}
}

func TestNoProgressWithoutSubject(t *testing.T) {
	w := startWorker(t, func(c *Config) { c.NATS = natstest.Connect(t, natstest.Start(t)) })
	var trailer metadata.MD
	_, err := w.client.ImportTasks(asCaller("write"), &taskwirev1.ImportTasksRequest{}, grpc.Trailer(&trailer))
	if err != nil {
		t.Fatal(err)
	}
	if got := trailer.Get(progress.TrailerCount); len(got) != 0 {
		t.Errorf("trailer %s = %q without a subject, want none", progress.TrailerCount, got)
	}
}

func TestPublisherDropsLateReports(t *testing.T) {
	url := natstest.Start(t)
	sub := subscribe(t, natstest.Connect(t, url), progress.SubjectPrefix+"fd.late")
	p := &publisher{nc: natstest.Connect(t, url), subject: progress.SubjectPrefix + "fd.late", log: discardLogger()}
	p.report(1, 0, "")
	if n, lost := p.close(); n != 1 || lost != 0 {
		t.Fatalf("close() = %d, %d, want 1, 0", n, lost)
	}
	p.report(2, 0, "late")
	if n, _ := p.close(); n != 1 {
		t.Errorf("close() after a late report = %d, want 1", n)
	}
	if ev := nextEvent(t, sub); ev.GetSeq() != 1 {
		t.Errorf("first event = %v, want seq 1", ev)
	}
}

// TestPublisherWithoutNATS: while NATS is unreachable, reports are counted
// lost instead of buffered, and closing does not wait for a flush that
// cannot come, so the result is not held up and the front door learns
// that progress was lost.
func TestPublisherWithoutNATS(t *testing.T) {
	ns := natstest.StartProcess(t)
	nc := natstest.Connect(t, ns.URL)
	ns.Kill()
	poll.Until(t, 5*time.Second, "the connection to notice NATS is gone", func() bool { return !nc.IsConnected() })
	p := &publisher{nc: nc, subject: progress.SubjectPrefix + "fd.down", log: discardLogger()}
	p.report(1, 2, "half")
	p.report(2, 2, "all")
	start := time.Now()
	n, lost := p.close()
	if n != 2 || lost != 2 {
		t.Errorf("close() = %d, %d, want 2 numbered, 2 lost", n, lost)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("close() took %v without NATS, want no wait for a flush", d)
	}
}
