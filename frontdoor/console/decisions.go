package console

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
)

// decisionView is a decision as the pages show it.
type decisionView struct {
	*taskwirev1.Decision
	State     string // "pending", "approved", …
	Arguments string // the arguments, indented
	// Work is the proposal of an assistant's work_approve, nil for other
	// tools.
	Work *workProposal
}

func viewDecision(d *taskwirev1.Decision) decisionView {
	dv := decisionView{Decision: d, State: enumName(d.GetState().String(), "DECISION_STATE_"), Arguments: d.GetArgumentsJson(), Work: proposalOf(d)}
	var buf bytes.Buffer
	if json.Indent(&buf, []byte(d.GetArgumentsJson()), "", "  ") == nil {
		dv.Arguments = buf.String()
	}
	return dv
}

// inbox is what the decisions page shows.
type inbox struct {
	Decisions []decisionView
	// Work waits for a person to approve it again: its claims ran out,
	// or an assistant released it with a reason.
	Work []*taskwirev1.WorkToApprove
}

// decisionsPage is the inbox: the tenant's decisions, pending first,
// newest first within each, and the work waiting to be approved again.
func (c *Console) decisionsPage(w http.ResponseWriter, r *http.Request, v *visit) {
	resp, err := c.decisions.ListDecisions(v.ctx(r), &taskwirev1.ListDecisionsRequest{Limit: 200})
	if err != nil {
		c.rpcFailed(w, r, v, err)
		return
	}
	work, err := c.work.ListWorkToApprove(v.ctx(r), &taskwirev1.ListWorkToApproveRequest{})
	if err != nil {
		c.rpcFailed(w, r, v, err)
		return
	}
	var in inbox
	for _, d := range resp.GetDecisions() {
		in.Decisions = append(in.Decisions, viewDecision(d))
	}
	slices.SortStableFunc(in.Decisions, func(a, b decisionView) int {
		return pendingFirst(a) - pendingFirst(b)
	})
	in.Work = work.GetItems()
	c.render(w, r, http.StatusOK, "decisions", page{Title: "Decisions", Visit: v, Data: in})
}

func pendingFirst(d decisionView) int {
	if d.GetState() == taskwirev1.DecisionState_DECISION_STATE_PENDING {
		return 0
	}
	return 1
}

// decisionPage shows one decision: the question, who asked, the
// arguments, and while it is pending the form to decide it. An
// assistant's elicitation sends its person here.
func (c *Console) decisionPage(w http.ResponseWriter, r *http.Request, v *visit) {
	resp, err := c.decisions.GetDecision(v.ctx(r), &taskwirev1.GetDecisionRequest{Id: r.PathValue("id")})
	if err != nil {
		c.rpcFailed(w, r, v, err)
		return
	}
	d := resp.GetDecision()
	c.render(w, r, http.StatusOK, "decision", page{Title: "Decision: " + d.GetQuestion(), Visit: v, Data: viewDecision(d)})
}

// decide approves or declines a decision, then shows it again.
func (c *Console) decide(w http.ResponseWriter, r *http.Request, v *visit) {
	id := r.PathValue("id")
	choice := r.PostFormValue("decision")
	if choice != "approve" && choice != "decline" {
		c.fail(w, r, v, http.StatusBadRequest, "Choose Approve or Decline.")
		return
	}
	_, err := c.decisions.Decide(v.ctx(r), &taskwirev1.DecideRequest{Id: id, Approve: choice == "approve", Reason: r.PostFormValue("reason")})
	if err != nil {
		c.rpcFailed(w, r, v, err)
		return
	}
	http.Redirect(w, r, "/t/"+url.PathEscape(v.tenant())+"/decisions/"+url.PathEscape(id), http.StatusSeeOther)
}
