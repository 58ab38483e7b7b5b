package tests

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/taskwire/taskwire/internal/poll"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/services/access"
)

// TestServeOnFullDisk: `taskwire serve` whose data directory's disk
// fills up (a 16 MiB tmpfs, filled by a file of its own) answers each
// call that would save something, through MCP and the admin API, with
// the sentence saying the disk is full; logs that once, not per call;
// stays up; and takes writes again, with no restart, as soon as the file
// is removed. Every task acknowledged before is still there and the
// database passes SQLite's integrity check.
//
// Reads go on while the disk is full: the audit log is exact
// (docs/decisions/0006), so a read is answered only once its row is
// stored, and the rows go in the room serve reserved at start and gave
// up when the disk filled. Should that room be taken too, reads are told
// the disk is full as writes are, and go on once there is room again.
func TestServeOnFullDisk(t *testing.T) {
	mnt := smallDisk(t, "16m")
	data := filepath.Join(mnt, "data")
	if err := os.Mkdir(data, 0o700); err != nil {
		t.Fatal(err)
	}
	s := startServedIn(t, data)
	reserve := filepath.Join(data, store.ReserveName)
	if st, err := os.Stat(reserve); err != nil || st.Size() != store.ReserveSize {
		t.Fatalf("reserve at start: %v, %v; want a file of %d bytes", st, err, store.ReserveSize)
	}
	hc := &http.Client{}
	var id int64
	call := func(tool string, args map[string]any) callResult {
		id++
		return postTool(hc, s.addr, s.tok, id, tool, args, "")
	}
	var acked []string
	var ref string
	create := func(title string) callResult {
		r := call("tasks_create", map[string]any{"title": title, "allow_duplicate": true})
		if r.outcome == outcomeOK {
			acked = append(acked, title)
			ref, _ = r.structured["task"].(map[string]any)["ref"].(string)
		}
		return r
	}
	for i := range 5 {
		if r := create(fmt.Sprintf("before the disk filled %d", i)); r.outcome != outcomeOK {
			t.Fatalf("tasks_create before the disk filled: %s", r.why)
		}
	}

	filler := fillDisk(t, mnt, "filler")
	var first callResult
	for i := 0; i < 20; i++ { // what SQLite had room for already may take a few more
		if first = create(fmt.Sprintf("while the disk filled %d", i)); first.outcome != outcomeOK {
			break
		}
	}
	for i, r := range []callResult{first, create("on a full disk")} {
		if !strings.Contains(r.why, "isError: "+access.DiskFullSentence) {
			t.Errorf("write %d on a full disk: %s (%v), want isError: %s", i, r.why, r.outcome, access.DiskFullSentence)
		}
	}
	if _, err := os.Stat(reserve); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("reserve while the disk is full: %v, want it removed", err)
	}
	code, body := adminCall(t, s, "CreateTenant", `{"slug":"globex","owner_handle":"grace"}`)
	if code != http.StatusInsufficientStorage || !strings.Contains(body, access.DiskFullSentence) {
		t.Errorf("admin CreateTenant on a full disk = %d %s, want 507 with the sentence", code, body)
	}
	// Two rounds of reads: the first grows the write-ahead log to where
	// SQLite checkpoints it and starts it over, the second mostly the
	// audit log's own rows.
	const reads = 300
	for round := range 2 {
		freeBefore := freeRoom(t, mnt)
		for i := range reads {
			var r callResult
			switch i % 3 {
			case 0:
				r = call("tasks_list", map[string]any{})
			case 1:
				r = call("tasks_get", map[string]any{"ref": ref})
			default:
				if msg := readBoardContext(t, s); !strings.HasPrefix(msg, "HTTP 200 ") || strings.Contains(msg, `"error"`) {
					t.Fatalf("resources/read %d on a full disk = %s, want it read", i, msg)
				}
				continue
			}
			if r.outcome != outcomeOK {
				t.Fatalf("read %d on a full disk: %s (%v), want it served", i, r.why, r.outcome)
			}
		}
		used := freeBefore - freeRoom(t, mnt)
		t.Logf("round %d: %d reads on the full disk took %d bytes of the reserve (%.0f a read)", round, reads, used, float64(used)/reads)
	}
	if r := create("on a full disk, after reads"); !strings.Contains(r.why, "isError: "+access.DiskFullSentence) {
		t.Errorf("write on a full disk after reads: %s (%v), want isError: %s", r.why, r.outcome, access.DiskFullSentence)
	}

	// The reserve's room taken too: reads are refused as writes, and go
	// on as soon as that room is back.
	more := fillDisk(t, mnt, "filler-2")
	var refused callResult
	served := 0
	for ; served < 5000; served++ { // the room SQLite holds already takes some
		if refused = call("tasks_list", map[string]any{}); refused.outcome != outcomeOK {
			break
		}
	}
	t.Logf("reads served in the room SQLite held once the reserve's was taken: %d", served)
	if !strings.Contains(refused.why, "isError: "+access.DiskFullSentence) {
		t.Errorf("read with the reserve's room taken: %s (%v), want isError: %s", refused.why, refused.outcome, access.DiskFullSentence)
	}
	if err := os.Remove(more); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 15*time.Second, "reads to be served once the reserve's room is back", func() bool {
		return call("tasks_list", map[string]any{}).outcome == outcomeOK
	})

	if strings.Contains(s.p.Stderr.String(), "disk has room again") {
		t.Errorf("serve said the disk has room again while it was full:\n%s", s.p.Stderr.String())
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	freed := time.Now()
	var again time.Duration
	poll.Until(t, 15*time.Second, "a write to succeed once space is freed", func() bool {
		r := create("after space was freed")
		again = time.Since(freed)
		return r.outcome == outcomeOK
	})
	t.Logf("first write after the filler was removed succeeded %v later", again.Round(time.Millisecond))
	if st, err := os.Stat(reserve); err != nil || st.Size() != store.ReserveSize {
		t.Errorf("reserve once space is freed: %v, %v; want a file of %d bytes again", st, err, store.ReserveSize)
	}
	if code, body := adminCall(t, s, "CreateTenant", `{"slug":"globex","owner_handle":"grace"}`); code != http.StatusOK {
		t.Errorf("admin CreateTenant once space is freed = %d %s, want 200", code, body)
	}
	if err := s.p.Cmd.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("serve exited on the full disk: %v\n%s", err, s.p.Stderr.String())
	}
	checkListed(t, call("tasks_list", map[string]any{"limit": 100}), acked)
	logged := s.p.Stderr.String()
	for _, msg := range []string{"the data directory's disk is full: writes fail until space is freed", "the data directory's disk has room again: writes succeed"} {
		if n := strings.Count(logged, msg); n != 1 {
			t.Errorf("log lines %q = %d, want 1", msg, n)
		}
	}
	if n := strings.Count(logged, `"msg":"internal error"`); n != 0 {
		t.Errorf("internal errors logged = %d, want 0 (a full disk is not our bug):\n%s", n, logged)
	}

	s.p.Signal(t, syscall.SIGTERM)
	if err := s.p.Wait(t, 20*time.Second); err != nil {
		t.Errorf("serve stopping: %v", err)
	}
	checkIntegrity(t, filepath.Join(data, "taskwire.db"))
}

// freeRoom is the room free on the file system holding dir.
func freeRoom(t *testing.T, dir string) int64 {
	t.Helper()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	return int64(st.Bavail) * st.Bsize
}

// smallDisk mounts a tmpfs of size for the test, unmounted when it ends;
// it skips the test where mounting is not permitted.
func smallDisk(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a small tmpfs to fill (run as root, or where mount is permitted): %v %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v %s", dir, err, out)
		}
	})
	return dir
}

// fillDisk writes a file named name in dir until its disk is full, and
// returns its path.
func fillDisk(t *testing.T, dir, name string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, chunk := range []int{1 << 20, 4 << 10, 1} {
		buf := bytes.Repeat([]byte{'x'}, chunk)
		for {
			if _, err := f.Write(buf); err != nil {
				if !errors.Is(err, syscall.ENOSPC) {
					t.Fatal(err)
				}
				break
			}
		}
	}
	return path
}

// adminCall POSTs body to the admin API's method as the platform
// operator, and returns the HTTP status and body.
func adminCall(t *testing.T, s *servedProc, method, body string) (int, string) {
	t.Helper()
	secret, err := os.ReadFile(filepath.Join(s.dir, "operator.secret"))
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, "http://"+s.addr+"/admin/v1/"+method, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(secret)))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	return resp.StatusCode, b.String()
}

// readBoardContext reads the main board's context resource and returns
// the response's body.
func readBoardContext(t *testing.T, s *servedProc) string {
	t.Helper()
	const uri = "taskwire://boards/main/context"
	body := `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"` + uri + `","_meta":{` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, err := http.NewRequest(http.MethodPost, "http://"+s.addr+"/api/mcp", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"Authorization": "Bearer " + s.tok, "Content-Type": "application/json",
		"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2026-07-28",
		"Mcp-Method": "resources/read", "Mcp-Name": uri} {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	return fmt.Sprintf("HTTP %d %s", resp.StatusCode, b.String())
}

// checkListed fails the test unless list, a tasks_list, holds a task of
// each title.
func checkListed(t *testing.T, list callResult, titles []string) {
	t.Helper()
	if list.outcome != outcomeOK {
		t.Fatalf("tasks_list: %s", list.why)
	}
	have := map[string]bool{}
	items, _ := list.structured["items"].([]any)
	for _, it := range items {
		if m, ok := it.(map[string]any); ok {
			have[fmt.Sprint(m["title"])] = true
		}
	}
	for _, title := range titles {
		if !have[title] {
			t.Errorf("acknowledged task %q missing after the disk was full (tasks listed: %d)", title, len(items))
		}
	}
}

// checkIntegrity fails the test unless the SQLite database at path
// passes PRAGMA integrity_check.
func checkIntegrity(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var got string
	if err := db.QueryRowContext(context.Background(), "PRAGMA integrity_check").Scan(&got); err != nil || got != "ok" {
		t.Errorf("PRAGMA integrity_check = %q, %v, want ok", got, err)
	}
}
