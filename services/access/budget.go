package access

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"google.golang.org/grpc/metadata"
)

// MDBudget carries the caller's rate budget from the front door to the
// worker on every tool call, so that whoami can report it: only the front
// door knows it, the worker serves whoami. The value reads
//
//	token=19/10/20;tenant=99/50/100
//
// one entry per level that has a limit: the calls left in the bucket the
// call was charged to (after this one), the refill per second and the
// bucket's size. It is informational: nothing is allowed or refused by it.
const MDBudget = "x-taskwire-budget"

// Budget is the caller's rate budget for the operation of one call, at
// the front door that took it. A nil level has no limit.
type Budget struct {
	Token  *BudgetLevel
	Tenant *BudgetLevel
}

// BudgetLevel is one token bucket: the whole calls it holds now, what it
// refills by per second and the most it holds.
type BudgetLevel struct {
	Remaining int
	PerSecond float64
	Burst     int
}

// String encodes b as MDBudget carries it; "" when no level has a limit.
func (b Budget) String() string {
	var parts []string
	for _, l := range b.levels() {
		if l.level != nil {
			parts = append(parts, l.name+"="+strconv.Itoa(l.level.Remaining)+"/"+
				strconv.FormatFloat(l.level.PerSecond, 'g', -1, 64)+"/"+strconv.Itoa(l.level.Burst))
		}
	}
	return strings.Join(parts, ";")
}

type namedLevel struct {
	name  string
	level *BudgetLevel
}

func (b Budget) levels() []namedLevel {
	return []namedLevel{{"token", b.Token}, {"tenant", b.Tenant}}
}

// ParseBudget decodes what String encoded.
func ParseBudget(s string) (Budget, error) {
	var b Budget
	if s == "" {
		return b, nil
	}
	for _, part := range strings.Split(s, ";") {
		name, value, _ := strings.Cut(part, "=")
		l, err := parseLevel(value)
		if err != nil {
			return Budget{}, fmt.Errorf("access: budget %q: %w", part, err)
		}
		switch {
		case name == "token" && b.Token == nil:
			b.Token = l
		case name == "tenant" && b.Tenant == nil:
			b.Tenant = l
		default:
			return Budget{}, fmt.Errorf("access: budget %q: unknown or repeated level", part)
		}
	}
	return b, nil
}

// parseLevel decodes "remaining/perSecond/burst".
func parseLevel(s string) (*BudgetLevel, error) {
	fields := strings.Split(s, "/")
	if len(fields) != 3 {
		return nil, errors.New("want remaining/per-second/burst")
	}
	remaining, err1 := strconv.Atoi(fields[0])
	perSecond, err2 := strconv.ParseFloat(fields[1], 64)
	burst, err3 := strconv.Atoi(fields[2])
	if err := errors.Join(err1, err2, err3); err != nil {
		return nil, err
	}
	if remaining < 0 || remaining > burst || burst < 1 || burst > math.MaxInt32 || !(perSecond > 0) || math.IsInf(perSecond, 0) {
		return nil, errors.New("out of range")
	}
	return &BudgetLevel{Remaining: remaining, PerSecond: perSecond, Burst: burst}, nil
}

type budgetKey struct{}

// NewBudgetContext returns ctx carrying the budget of the call it runs;
// the front door sets it once it has charged the call.
func NewBudgetContext(ctx context.Context, b Budget) context.Context {
	return context.WithValue(ctx, budgetKey{}, b)
}

// AppendBudget adds the budget in ctx, if any, to its outgoing gRPC
// metadata.
func AppendBudget(ctx context.Context) context.Context {
	b, _ := ctx.Value(budgetKey{}).(Budget)
	if s := b.String(); s != "" {
		return metadata.AppendToOutgoingContext(ctx, MDBudget, s)
	}
	return ctx
}

// BudgetFromIncoming reads the budget the front door sent with a call. ok
// is false when it sent none (no limits) or one that does not parse.
func BudgetFromIncoming(ctx context.Context) (b Budget, ok bool) {
	values := metadata.ValueFromIncomingContext(ctx, MDBudget)
	if len(values) != 1 {
		return Budget{}, false
	}
	b, err := ParseBudget(values[0])
	return b, err == nil && (b.Token != nil || b.Tenant != nil)
}
