package tests

import (
	"fmt"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/taskwire/taskwire/node/nodetest"
)

// phone is the viewport of a common phone, in CSS pixels.
const phoneWidth, phoneHeight = 390, 844

// TestBrowserNarrowAndDark: on a phone (390 px wide) the board and a task
// page fit the screen, so the page itself never scrolls sideways, and in
// dark mode both pass axe, colour contrast included.
func TestBrowserNarrowAndDark(t *testing.T) {
	s, h := embeddedSite(t, nodetest.Setups()[0])
	owner, _ := h.Client(t, h.Token, nil)
	nodetest.CallOK(t, owner, "tasks_create", map[string]any{"title": "Write the launch plan for the autumn release, with every channel we announce on", "kind": "feature", "size": "s"})
	nodetest.CallOK(t, owner, "tasks_create", map[string]any{"title": "Book the venue for the retro"})
	nodetest.CallOK(t, owner, "comments_add", map[string]any{"ref": "T-1", "body": "Started on the outline: https://docs.example.com/a/very/long/path/to/the/launch/plan/draft/v2"})
	nodetest.CallOK(t, owner, "tasks_move", map[string]any{"ref": "T-1", "lane": "doing"})
	furnish(t, s, owner)
	p := signedIn(t, s)
	board, task := "/t/"+s.tenant+"/", "/t/"+s.tenant+"/tasks/T-1"

	p.call(func() error {
		_, err := chromedp.Call(p.ctx, emulation.SetDeviceMetricsOverride,
			emulation.SetDeviceMetricsOverrideParams{Width: phoneWidth, Height: phoneHeight, DeviceScaleFactor: 2, Mobile: true})
		return err
	})
	for _, pg := range []struct{ name, path, shot string }{
		{"the board at 390 px", board, "board-narrow"},
		{"the board at 390 px with its filters open", board + "?kind=feature&q=launch", ""},
		{"a task page at 390 px", task, ""},
	} {
		p.open(pg.path)
		p.waitFor("the page at the phone's width", fmt.Sprintf("window.innerWidth === %d", phoneWidth))
		if w := p.eval(`document.documentElement.scrollWidth`); w > phoneWidth {
			t.Errorf("%s is %d px wide, wider than the phone's %d: the page scrolls sideways", pg.name, w, phoneWidth)
		}
		p.checkPage(pg.name, pg.shot)
	}

	p.call(func() error {
		if _, err := chromedp.Call(p.ctx, emulation.SetDeviceMetricsOverride,
			emulation.SetDeviceMetricsOverrideParams{Width: 1280, Height: 800, DeviceScaleFactor: 1}); err != nil {
			return err
		}
		_, err := chromedp.Call(p.ctx, emulation.SetEmulatedMedia,
			emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}})
		return err
	})
	for _, pg := range []struct{ name, path, shot string }{
		{"the board in dark mode", board, "board-dark"},
		{"a task page in dark mode", task, ""},
	} {
		p.open(pg.path)
		p.waitFor("dark mode", `matchMedia("(prefers-color-scheme: dark)").matches`)
		p.checkPage(pg.name, pg.shot)
	}
}

// call runs DevTools commands on p's tab, failing the test if they fail.
func (p *person) call(commands func() error) {
	p.t.Helper()
	if err := commands(); err != nil {
		p.t.Fatalf("emulating a device: %v", err)
	}
}
