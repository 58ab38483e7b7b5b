package board_test

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/store/storetest"
)

// spacelessFixture seeds tasks in Chinese, Japanese and Korean, whose words
// have no spaces between them.
func spacelessFixture(t *testing.T, e *env) []*ent.Task {
	t.Helper()
	return seeder{t, e.client}.tasks(
		seedTask{title: "修复登录超时问题", note: "用户三十秒后被登出。"}, // T-1
		seedTask{title: "季度报告", note: strings.Repeat("预算和会议的无关文字。", 20) + "其中一步是排查登录超时。还要修复报表。" + strings.Repeat("预算和会议的无关文字。", 20)}, // T-2
		seedTask{title: "ログインのタイムアウトを修正する", note: "セッションが切れる。"},                                                                      // T-3
		seedTask{title: "로그인이 실패합니다", note: "세션이 30초 후에 만료됩니다."},                                                                     // T-4
		seedTask{title: "Fixing the login timeout", note: "超时 is the Chinese word"},                                                  // T-5
		seedTask{tenant: "globex", title: "修复登录超时问题"},                                                                                // globex T-1
	)
}

func TestSearchTasksSpaceless(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		spacelessFixture(t, e)
		for _, tc := range []struct {
			name   string
			query  string
			want   []string
			ranked bool // want is in rank order, not in ref order
		}{
			{"two characters", "修复", []string{"T-1", "T-2"}, false},
			{"middle of a phrase", "登录超时", []string{"T-1", "T-2"}, false},
			{"title match ranks first", "登录超时", []string{"T-1", "T-2"}, true},
			{"short word: title ranks first", "超时", []string{"T-1", "T-2", "T-5"}, true}, // then by number
			{"every word must match", "修复 报表", []string{"T-2"}, false},
			{"short and long words", "登出 用户", []string{"T-1"}, false},
			{"japanese", "タイムアウト", []string{"T-3"}, false},
			{"japanese, two characters", "修正", []string{"T-3"}, false},
			{"korean word with a particle", "로그인", []string{"T-4"}, false},
			{"korean, two syllables", "만료", []string{"T-4"}, false},
			{"with latin words", "超时 login", []string{"T-5"}, false},
			{"nothing", "数据库", nil, false},
		} {
			resp, err := e.svc.SearchTasks(e.alice, &taskwirev1.SearchTasksRequest{Query: tc.query})
			if err != nil {
				t.Errorf("SearchTasks(%s: %s) = %v", tc.name, tc.query, err)
				continue
			}
			var got []string
			for _, h := range resp.Items {
				got = append(got, h.Ref)
			}
			if !tc.ranked {
				slices.Sort(got)
			}
			if !cmp.Equal(got, tc.want) {
				t.Errorf("SearchTasks(%s: %s) = %v, want %v", tc.name, tc.query, got, tc.want)
			}
		}
	})
}

func TestSearchTasksSpacelessHits(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		spacelessFixture(t, e)
		resp, err := e.svc.SearchTasks(e.alice, &taskwirev1.SearchTasksRequest{Query: "登录超时"})
		if err != nil || len(resp.Items) != 2 {
			t.Fatalf("SearchTasks(登录超时) = %v, %v, want 2 hits", resp, err)
		}
		title, note := resp.Items[0], resp.Items[1]
		if title.Title != "修复登录超时问题" || title.Snippet != "修复**登录超时**问题" {
			t.Errorf("SearchTasks(登录超时) first hit = %q with snippet %q, want 修复登录超时问题 with the words in bold", title.Title, title.Snippet)
		}
		if !strings.Contains(note.Snippet, "排查**登录超时**。") || !strings.HasPrefix(note.Snippet, "…") || utf8.RuneCountInString(note.Snippet) > 80 {
			t.Errorf("SearchTasks(登录超时) second hit snippet = %q, want a short passage of the note with the words in bold", note.Snippet)
		}
	})
}

func TestSearchTasksSpacelessFollowsChanges(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		tasks := spacelessFixture(t, e)
		ctx, _ := seeder{t, c}.ctx("acme")
		c.Task.UpdateOne(tasks[0]).SetTitle("更新数据库架构").SetNote("").ExecX(ctx)
		c.Task.DeleteOne(tasks[2]).ExecX(ctx)
		for q, want := range map[string][]string{
			"登录超时":   {"T-2"}, // T-1 no longer says it
			"数据库架构":  {"T-1"},
			"タイムアウト": nil,
		} {
			resp, err := e.svc.SearchTasks(e.alice, &taskwirev1.SearchTasksRequest{Query: q})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range resp.Items {
				got = append(got, h.Ref)
			}
			if !cmp.Equal(got, want) {
				t.Errorf("SearchTasks(%s) after changes = %v, want %v", q, got, want)
			}
		}
	})
}
