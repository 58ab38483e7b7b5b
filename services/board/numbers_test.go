package board_test

import (
	"fmt"
	"testing"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/internal/tenancy"
)

// TestNumbersArePerTenant: the ids a caller sees of comments and context
// notes count its own tenant's only. Whatever acme did before, globex's
// first comment and note are 1; comments_edit finds a comment by that
// number in the caller's tenant only; and the history names comments by
// number.
func TestNumbersArePerTenant(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		e.create(t, e.alice, "Acme's task")
		for i := range 3 {
			if got := e.comment(t, e.alice, "T-1", fmt.Sprint("acme ", i)); got.GetId() != int32(i+1) {
				t.Errorf("acme's comment %d has id %d, want %d", i, got.GetId(), i+1)
			}
			if got := e.note(t, e.alice, "main", fmt.Sprint("acme note ", i)); got.GetId() != int32(i+1) {
				t.Errorf("acme's note %d has id %d, want %d", i, got.GetId(), i+1)
			}
		}
		e.create(t, e.gina, "Globex's task")
		if got := e.comment(t, e.gina, "T-1", "globex 0"); got.GetId() != 1 {
			t.Errorf("globex's first comment has id %d after acme's three, want 1", got.GetId())
		}
		if got := e.note(t, e.gina, "main", "globex note 0"); got.GetId() != 1 {
			t.Errorf("globex's first note has id %d after acme's three, want 1", got.GetId())
		}

		edited, err := e.svc.EditComment(e.gina, &taskwirev1.EditCommentRequest{Id: 1, Body: "globex 0, edited"})
		if err != nil || edited.GetComment().GetBody() != "globex 0, edited" {
			t.Fatalf("EditComment(globex #1) = %v, %v; want globex's own comment edited", edited, err)
		}
		_, err = e.svc.EditComment(e.gina, &taskwirev1.EditCommentRequest{Id: 3, Body: "not mine"})
		if domainerr.KindOf(err) != domainerr.NotFound {
			t.Errorf("EditComment(#3) in globex, which has one comment = %v, want NotFound (acme's #3 is not globex's)", err)
		}
		resp, err := e.svc.ListComments(e.alice, &taskwirev1.ListCommentsRequest{Ref: "T-1"})
		if err != nil || len(resp.GetItems()) != 3 || resp.GetItems()[0].GetBody() != "acme 0" {
			t.Fatalf("acme's comments = %v, %v; want its three, unedited", resp, err)
		}

		got, err := e.svc.GetTask(e.gina, &taskwirev1.GetTaskRequest{Ref: "T-1", IncludeHistory: true})
		if err != nil {
			t.Fatal(err)
		}
		var named []string
		for _, h := range got.GetHistory() {
			for _, d := range h.GetDetail() {
				if d.GetName() == "comment" || d.GetName() == "comment_id" {
					named = append(named, h.GetAction()+" "+d.GetName()+"="+d.GetValue())
				}
			}
		}
		if want := "[comment.edited comment=1 comment.added comment=1]"; fmt.Sprint(named) != want {
			t.Errorf("globex's T-1 history names comments as %v, want %s", named, want)
		}
	})
}

// TestMemberIDsAreRandom: new members' ids (the subject of their tokens)
// are drawn at random, not handed out in sequence, so that a token holder
// cannot count the platform's members from its own.
func TestMemberIDsAreRandom(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		newEnv(t, c)
		var ids []int
		for i := range 6 {
			ids = append(ids, addMember(t, c, "globex", tenancy.MemberSpec{Handle: fmt.Sprint("m", i)}).ID)
		}
		seen := map[int]bool{}
		for i, id := range ids {
			if id < 1<<24 || id >= 1<<31 || seen[id] {
				t.Errorf("member ids %v: %d is not a fresh random id of 31 bits above 2^24", ids, id)
			}
			seen[id] = true
			if i > 0 && (id == ids[i-1]+1 || id == ids[i-1]-1) {
				t.Errorf("member ids %v are consecutive: %d after %d", ids, id, ids[i-1])
			}
		}
	})
}
