package console

import (
	"context"
	"maps"
	"net/http"
	"net/url"
	"slices"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
)

// maxCardPages bounds the pages of 100 tasks one board page reads: a
// board past 500 cards needs the filters more than a longer page.
const maxCardPages = 5

// boardData is what the board page shows.
type boardData struct {
	Boards  []*taskwirev1.Board
	Handles []string // the members, for the assignee filter
	Board   *taskwirev1.GetBoardResponse
	Lanes   []laneView
	Filters filters
	Kinds   []string
	More    bool // more cards than were read
}

// laneView is one lane of the board page.
type laneView struct {
	Name, Title  string
	Limit, Count int32
	Over         bool // past its WIP limit
	Cards        []cardView
}

// cardView is one card.
type cardView struct {
	Task      *taskwirev1.Task
	Lane      string
	Kind      string
	Size      string
	Assignees []assigneeView
	Move      *moveForm // what each card's move form needs
}

// moveForm is what the move forms of a board page share.
type moveForm struct {
	Tenant, CSRF, Back string
	Lanes              []laneOption
}

type assigneeView struct{ Handle, Kind string }

type laneOption struct{ Name, Title string }

// boardPage shows a board: the tenant's default one, or the one named in
// the path.
func (c *Console) boardPage(w http.ResponseWriter, r *http.Request, v *visit) {
	ctx := v.ctx(r)
	d := boardData{Filters: readFilters(r.URL.Query()), Kinds: allKinds}
	move := &moveForm{Tenant: v.tenant(), CSRF: v.csrf, Back: r.URL.RequestURI()}
	for _, l := range allLanes {
		move.Lanes = append(move.Lanes, laneOption{laneName(l), laneTitle(l)})
	}
	var err error
	if d.Board, err = c.board.GetBoard(ctx, &taskwirev1.GetBoardRequest{Board: r.PathValue("board")}); err != nil {
		c.rpcFailed(w, r, v, err)
		return
	}
	boards, err := c.board.ListBoards(ctx, &taskwirev1.ListBoardsRequest{Limit: 100})
	if err != nil {
		c.rpcFailed(w, r, v, err)
		return
	}
	d.Boards = boards.GetItems()
	kinds, err := c.memberKinds(ctx)
	if err != nil {
		c.rpcFailed(w, r, v, err)
		return
	}
	tasks, more, err := c.boardTasks(ctx, d.Board.GetBoard().GetSlug(), d.Filters)
	if err != nil {
		c.rpcFailed(w, r, v, err)
		return
	}
	d.Lanes, d.More, d.Handles = lanesOf(d.Board, tasks, kinds, move), more, slices.Sorted(maps.Keys(kinds))
	c.render(w, r, http.StatusOK, "board", page{Title: d.Board.GetBoard().GetName(), Visit: v, Data: d})
}

// boardTasks reads the board's tasks that pass f, in board order.
func (c *Console) boardTasks(ctx context.Context, board string, f filters) (tasks []*taskwirev1.Task, more bool, err error) {
	req := f.request(board)
	for range maxCardPages {
		resp, err := c.board.ListTasks(ctx, req)
		if err != nil {
			return nil, false, err
		}
		tasks = append(tasks, resp.GetItems()...)
		if req.Cursor = resp.GetNextCursor(); req.Cursor == "" {
			return tasks, false, nil
		}
	}
	return tasks, true, nil
}

// memberKinds maps each member's handle to "person" or "assistant".
func (c *Console) memberKinds(ctx context.Context) (map[string]string, error) {
	members, err := c.members(ctx)
	return kindsOf(members), err
}

// lanesOf puts the tasks in the board's lanes, in order.
func lanesOf(b *taskwirev1.GetBoardResponse, tasks []*taskwirev1.Task, kinds map[string]string, move *moveForm) []laneView {
	var lanes []laneView
	index := map[taskwirev1.Lane]int{}
	for _, l := range b.GetLanes() {
		index[l.GetLane()] = len(lanes)
		lanes = append(lanes, laneView{
			Name: laneName(l.GetLane()), Title: laneTitle(l.GetLane()),
			Limit: l.GetWipLimit(), Count: l.GetCount(),
			Over: l.GetWipLimit() > 0 && l.GetCount() > l.GetWipLimit(),
		})
	}
	for _, t := range tasks {
		i, ok := index[t.GetLane()]
		if !ok {
			continue
		}
		card := cardOf(t, kinds)
		card.Move = move
		lanes[i].Cards = append(lanes[i].Cards, card)
	}
	return lanes
}

func cardOf(t *taskwirev1.Task, kinds map[string]string) cardView {
	cv := cardView{Task: t, Lane: laneName(t.GetLane()), Kind: kindName(t.GetKind()), Size: sizeName(t.GetSize())}
	for _, h := range t.GetAssignees() {
		k := kinds[h]
		if k == "" {
			k = "person"
		}
		cv.Assignees = append(cv.Assignees, assigneeView{h, k})
	}
	return cv
}

// filters are the board page's filters, from its query.
type filters struct {
	Assignee, Label, Project, Kind, Flagged, Q string
}

// Set counts the filters in use: the filter panel is open when any is,
// so that what hides cards is in sight.
func (f filters) Set() int {
	n := 0
	for _, v := range []string{f.Assignee, f.Label, f.Project, f.Kind, f.Flagged, f.Q} {
		if v != "" {
			n++
		}
	}
	return n
}

func readFilters(q url.Values) filters {
	return filters{
		Assignee: q.Get("assignee"), Label: q.Get("label"), Project: q.Get("project"),
		Kind: q.Get("kind"), Flagged: q.Get("flagged"), Q: q.Get("q"),
	}
}

// request is the ListTasks request of the board's cards passing f.
func (f filters) request(board string) *taskwirev1.ListTasksRequest {
	req := &taskwirev1.ListTasksRequest{
		Board: board, Limit: 100, Sort: taskwirev1.TaskSort_TASK_SORT_POSITION,
		Assignee: f.Assignee, Label: f.Label, Project: f.Project, Kind: parseKind(f.Kind), Text: f.Q,
	}
	switch f.Flagged {
	case "yes":
		req.Flagged = ptr(true)
	case "no":
		req.Flagged = ptr(false)
	}
	return req
}

// boardPath is the path of a board's page.
func boardPath(tenant, board string) string {
	return tenantPath(tenant) + "b/" + url.PathEscape(board) + "/"
}

func ptr[T any](v T) *T { return &v }
