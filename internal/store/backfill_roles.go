package store

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/ent/privacy"
)

// lowerAssistants gives the member role to every assistant above it.
// Assistants never administer (schema version 2 on): an owner or admin
// assistant of an older database could mint tokens and promote members for
// its sponsor. Each one lowered is logged, so the operators can tell its
// sponsor.
func lowerAssistants(ctx context.Context, client *ent.Client, log *slog.Logger) error {
	// Members belong to tenants; this reads and writes across them, as
	// system work.
	ctx = privacy.DecisionContext(ctx, privacy.Allow)
	above := member.And(member.KindEQ(member.KindAssistant), member.RoleIn(member.RoleOwner, member.RoleAdmin))
	rows, err := client.Member.Query().Where(above).WithTenant().All(ctx)
	if err != nil || len(rows) == 0 {
		return wrapBackfill(err)
	}
	if _, err := client.Member.Update().Where(above).SetRole(member.RoleMember).Save(ctx); err != nil {
		return wrapBackfill(err)
	}
	for _, m := range rows {
		log.WarnContext(ctx, "migration: assistant lowered to the member role (assistants never administer)",
			"tenant", m.Edges.Tenant.Slug, "handle", m.Handle, "was", string(m.Role))
	}
	return nil
}

func wrapBackfill(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("store: backfill: %w", err)
}
