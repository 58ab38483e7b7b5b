package tenancy

import (
	"context"
	"errors"
	"fmt"

	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/board"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/ent/tenant"
	"github.com/taskwire/taskwire/internal/ent/tenantscope"
	"github.com/taskwire/taskwire/internal/store"
)

// Config names what Bootstrap creates in an empty database. TenantSlug and
// OwnerHandle are required; the names default to them, the board to
// "main"/"Main".
type Config struct {
	TenantSlug  string
	TenantName  string
	OwnerHandle string
	OwnerName   string
	BoardSlug   string
	BoardName   string
}

func (c Config) withDefaults() Config {
	if c.TenantName == "" {
		c.TenantName = c.TenantSlug
	}
	if c.OwnerName == "" {
		c.OwnerName = c.OwnerHandle
	}
	if c.BoardSlug == "" {
		c.BoardSlug = "main"
	}
	if c.BoardName == "" {
		c.BoardName = "Main"
	}
	return c
}

// Validate reports whether c can be bootstrapped, as an Invalid error.
func (c Config) Validate() error {
	_, err := c.Checked()
	return err
}

// Checked returns c with its defaults and its names trimmed and in NFC, as
// Bootstrap stores them, or why it cannot be bootstrapped (Invalid).
func (c Config) Checked() (Config, error) {
	c = c.withDefaults()
	var nameErrs [3]error
	c.TenantName, nameErrs[0] = cleanName("tenant name", c.TenantName)
	c.OwnerName, nameErrs[1] = cleanName("owner name", c.OwnerName)
	c.BoardName, nameErrs[2] = cleanName("board name", c.BoardName)
	return c, errors.Join(
		checkName("tenant slug", c.TenantSlug),
		checkHandle(c.OwnerHandle),
		checkName("board slug", c.BoardSlug),
		errors.Join(nameErrs[:]...),
	)
}

// Result is the tenant Bootstrap found or created, with its owner and default
// board. Created tells whether this call created them.
type Result struct {
	Tenant  *ent.Tenant
	Owner   *ent.Member
	Board   *ent.Board
	Created bool
}

// Bootstrap makes sure the database has a tenant. In an empty database it
// creates the tenant of cfg, its owner (a human with role owner) and its
// default board, in one transaction. Otherwise it changes nothing and
// returns the first tenant, its first owner and its default board.
func Bootstrap(ctx context.Context, client *ent.Client, cfg Config) (Result, error) {
	cfg, err := cfg.Checked()
	if err != nil {
		return Result{}, err
	}
	var res Result
	err = store.WithTx(ctx, client, func(tx *ent.Tx) error {
		var err error
		res, err = existing(ctx, tx.Client())
		if !errors.Is(err, errNoTenant) {
			return err
		}
		res, err = create(ctx, tx.Client(), cfg)
		return err
	})
	if ent.IsConstraintError(err) {
		// Another process bootstrapped the same tenant meanwhile.
		res, err = existing(ctx, client)
	}
	if err != nil {
		return Result{}, store.DomainError(ctx, err)
	}
	return res, nil
}

var errNoTenant = errors.New("no tenant")

func existing(ctx context.Context, c *ent.Client) (Result, error) {
	t, err := c.Tenant.Query().Order(ent.Asc(tenant.FieldID)).First(ctx)
	if ent.IsNotFound(err) {
		return Result{}, errNoTenant
	}
	if err != nil {
		return Result{}, err
	}
	ctx = tenantscope.NewContext(ctx, t.ID)
	owner, err := c.Member.Query().
		Where(member.TenantID(t.ID), member.RoleEQ(member.RoleOwner)).
		Order(ent.Asc(member.FieldID)).First(ctx)
	if err != nil {
		return Result{}, fmt.Errorf("owner of tenant %s: %w", t.Slug, err)
	}
	b, err := c.Board.Query().
		Where(board.TenantID(t.ID)).
		Order(ent.Desc(board.FieldIsDefault), ent.Asc(board.FieldID)).First(ctx)
	if err != nil {
		return Result{}, fmt.Errorf("default board of tenant %s: %w", t.Slug, err)
	}
	return Result{Tenant: t, Owner: owner, Board: b}, nil
}

func create(ctx context.Context, c *ent.Client, cfg Config) (Result, error) {
	t, err := c.Tenant.Create().SetSlug(cfg.TenantSlug).SetName(cfg.TenantName).Save(ctx)
	if err != nil {
		return Result{}, err
	}
	ctx = tenantscope.NewContext(ctx, t.ID)
	owner, err := c.Member.Create().SetTenantID(t.ID).
		SetHandle(cfg.OwnerHandle).SetDisplayName(cfg.OwnerName).
		SetKind(member.KindHuman).SetRole(member.RoleOwner).Save(ctx)
	if err != nil {
		return Result{}, err
	}
	b, err := c.Board.Create().SetTenantID(t.ID).
		SetSlug(cfg.BoardSlug).SetName(cfg.BoardName).SetIsDefault(true).Save(ctx)
	if err != nil {
		return Result{}, err
	}
	return Result{Tenant: t, Owner: owner, Board: b, Created: true}, nil
}

// checkHandle is checkName for member handles, which also may not be "me":
// tools read "me" as the caller.
func checkHandle(h string) error {
	if h == "me" {
		return domainerr.New(domainerr.Invalid, `member handle "me" is reserved (tools read it as the caller): choose another`)
	}
	return checkName("member handle", h)
}
