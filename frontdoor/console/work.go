package console

import (
	"net/http"
	"strconv"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/worklimits"
)

// workApproveTool is the tool whose decisions propose work for
// assistants.
const workApproveTool = "work_approve"

// workProposal is what an assistant's work_approve asks a person to
// approve: the task, the plan and the limits, with the defaults the
// board applies to limits left out.
type workProposal struct {
	Ref, Plan               string
	LeaseMinutes, MaxClaims int32
}

// proposalOf reads the proposal of a work_approve decision; nil for any
// other decision, or arguments that do not read as one.
func proposalOf(d *taskwirev1.Decision) *workProposal {
	var req taskwirev1.ApproveWorkRequest
	if d.GetTool() != workApproveTool || (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal([]byte(d.GetArgumentsJson()), &req) != nil {
		return nil
	}
	p := &workProposal{Ref: req.GetRef(), Plan: req.GetPlan(), LeaseMinutes: req.GetLeaseMinutes(), MaxClaims: req.GetMaxClaims()}
	if p.LeaseMinutes == 0 {
		p.LeaseMinutes = worklimits.DefaultLeaseMinutes
	}
	if p.MaxClaims == 0 {
		p.MaxClaims = worklimits.DefaultMaxClaims
	}
	return p
}

// workForm is what the task page's approval form shows: the limits'
// bounds, and what a person sent that could not be saved.
type workForm struct {
	Plan                    string
	LeaseMinutes, MaxClaims int
	MaxLease, MaxMaxClaims  int
	MaxPlan                 int
}

func newWorkForm() *workForm {
	return &workForm{LeaseMinutes: worklimits.DefaultLeaseMinutes, MaxClaims: worklimits.DefaultMaxClaims,
		MaxLease: worklimits.MaxLeaseMinutes, MaxMaxClaims: worklimits.MaxMaxClaims, MaxPlan: worklimits.MaxPlan}
}

// approveWork approves the task for assistants as the person, with the
// plan and limits of the task page's form; a refusal shows the task
// again with the form as it was sent.
func (c *Console) approveWork(w http.ResponseWriter, r *http.Request, v *visit) {
	ref := r.PathValue("ref")
	f := newWorkForm()
	f.Plan = r.PostFormValue("plan")
	f.LeaseMinutes, _ = strconv.Atoi(r.PostFormValue("lease_minutes"))
	f.MaxClaims, _ = strconv.Atoi(r.PostFormValue("max_claims"))
	_, err := c.work.ApproveWork(v.ctx(r), &taskwirev1.ApproveWorkRequest{
		Ref: ref, Plan: f.Plan, LeaseMinutes: int32(f.LeaseMinutes), MaxClaims: int32(f.MaxClaims),
	})
	switch status.Code(err) {
	case codes.OK:
		http.Redirect(w, r, taskPath(v.tenant(), ref)+"#approve-work", http.StatusSeeOther)
	case codes.InvalidArgument, codes.FailedPrecondition, codes.Aborted:
		c.showTaskWith(w, r, v, http.StatusBadRequest, status.Convert(err).Message(), nil, f)
	default:
		c.rpcFailed(w, r, v, err)
	}
}
