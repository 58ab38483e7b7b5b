// Package console is the web console people use: server-rendered pages
// for signing in, the board, a task, and the decisions only a person may
// make. Like the MCP endpoint beside it, it holds no data: every page
// reads through the workers' gRPC services, and every change is the same
// RPC a tool makes, called as the person's session (identity.KindSession),
// so a person and an assistant go through one code path and one set of
// checks.
package console

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"time"

	"google.golang.org/grpc"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/frontdoor"
	"github.com/taskwire/taskwire/frontdoor/oidcsignin"
	"github.com/taskwire/taskwire/frontdoor/sealed"
	"github.com/taskwire/taskwire/internal/events"
)

// Events is where live updates come from: a tenant's change events
// (events.Bus over NATS).
type Events interface {
	Subscribe(tenant string, fn func(events.Event)) (unsubscribe func(), err error)
}

// Config is what a console is built from.
type Config struct {
	// Conn reaches the workers, which serve SessionService, BoardService,
	// DecisionService, AuditService, WorkService, AdminService and
	// OAuthService.
	Conn grpc.ClientConnInterface
	// PublicURL is the deployment's URL: it decides the cookie's name and
	// Secure flag, and is the origin forms may be posted from.
	PublicURL string
	// CSRFKeys sign the forms' CSRF tokens: the first signs, all verify
	// (keys derived from retired root keys keep open pages working).
	CSRFKeys [][]byte
	// Events feeds /t/<tenant>/events; nil: pages are not updated live.
	Events Events
	// OIDCProviders are the OpenID providers people may sign in with;
	// OIDCStates seals the sign-in's state cookie (required with them).
	OIDCProviders []oidcsignin.ProviderConfig
	OIDCStates    *sealed.Box
	// PasskeyStates seals the passkey ceremonies' state cookies; nil: a
	// key of this process's, which a ceremony begun at another front
	// door cannot use.
	PasskeyStates *sealed.Box
	// MaxTokenTTL is the longest a token may live (--max-token-ttl): the
	// Tokens page offers no longer expiry. 0: every expiry is offered
	// (the workers still refuse what exceeds their maximum).
	MaxTokenTTL time.Duration
	// Throttle limits failed sign-ins per client address; nil: none.
	Throttle *frontdoor.AuthThrottle
	Logger   *slog.Logger // required
}

// Validate reports the first problem of cfg that New refuses.
func (cfg Config) Validate() error {
	switch {
	case cfg.Conn == nil:
		return errors.New("console: Config.Conn is required")
	case cfg.Logger == nil:
		return errors.New("console: Config.Logger is required")
	case len(cfg.CSRFKeys) == 0 || len(cfg.CSRFKeys[0]) < 16:
		return errors.New("console: Config.CSRFKeys needs a key of at least 16 bytes")
	}
	u, err := url.Parse(cfg.PublicURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("console: Config.PublicURL %q is not an absolute http(s) URL", cfg.PublicURL)
	}
	return nil
}

// Console serves the console's pages.
type Console struct {
	cfg       Config
	log       *slog.Logger
	sessions  taskwirev1.SessionServiceClient
	board     taskwirev1.BoardServiceClient
	decisions taskwirev1.DecisionServiceClient
	admin     adminv1.AdminServiceClient
	audit     taskwirev1.AuditServiceClient
	work      taskwirev1.WorkServiceClient
	oauth     taskwirev1.OAuthServiceClient
	cookies   cookies
	csrf      csrfKeys
	pages     *pages
	oidc      *oidcsignin.RP // nil: no OpenID providers
	passkeys  *sealed.Box
	// passkeysOn: the public URL names a host, which passkeys need
	// (browsers refuse an IP address as a relying party's ID).
	passkeysOn bool
	handler    http.Handler
	stop       chan struct{} // closed by Shutdown
	stopOnce   sync.Once
}

// New returns the console of cfg.
func New(cfg Config) (*Console, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	pg, err := parsePages()
	if err != nil {
		return nil, err
	}
	c := &Console{
		cfg:       cfg,
		log:       cfg.Logger.With("component", "console"),
		sessions:  taskwirev1.NewSessionServiceClient(cfg.Conn),
		board:     taskwirev1.NewBoardServiceClient(cfg.Conn),
		decisions: taskwirev1.NewDecisionServiceClient(cfg.Conn),
		admin:     adminv1.NewAdminServiceClient(cfg.Conn),
		audit:     taskwirev1.NewAuditServiceClient(cfg.Conn),
		work:      taskwirev1.NewWorkServiceClient(cfg.Conn),
		oauth:     taskwirev1.NewOAuthServiceClient(cfg.Conn),
		cookies:   newCookies(cfg.PublicURL),
		csrf:      csrfKeys(cfg.CSRFKeys),
		pages:     pg,
		stop:      make(chan struct{}),
	}
	if c.oidc, err = newOIDC(cfg, c.cookies); err != nil {
		return nil, err
	}
	if c.passkeys, err = passkeyBox(cfg.PasskeyStates); err != nil {
		return nil, err
	}
	c.passkeysOn = passkeyHost(cfg.PublicURL)
	if c.handler, err = c.routes(); err != nil {
		return nil, err
	}
	return c, nil
}

// ServeHTTP serves one console request.
func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.handler.ServeHTTP(w, r)
}
