package frontdoor

import (
	"sync/atomic"

	"github.com/taskwire/taskwire/internal/events"
)

// listMethods are the notifications of a changed list, by list.
var listMethods = [...]string{
	"notifications/tools/list_changed",
	"notifications/resources/list_changed",
	"notifications/prompts/list_changed",
}

// listChanges gathers the lists a listen stream has yet to tell its
// client about: one bit a list, so that a burst of changes costs one
// notification a list, and no change is lost behind others (a queue of
// events filled up with other members' changes, and cost each idle
// stream a kilobyte).
type listChanges struct {
	lists atomic.Uint32
	wake  chan struct{} // one slot: lists has news
}

func newListChanges() *listChanges {
	return &listChanges{wake: make(chan struct{}, 1)}
}

// add marks list (an index of listMethods) changed.
func (c *listChanges) add(list int) {
	c.lists.Or(1 << list)
	select {
	case c.wake <- struct{}{}:
	default: // a wake-up is already due
	}
}

// take returns the notifications of the lists changed since the last
// take, in listMethods' order.
func (c *listChanges) take() []string {
	lists := c.lists.Swap(0)
	var methods []string
	for i, m := range listMethods {
		if lists&(1<<i) != 0 {
			methods = append(methods, m)
		}
	}
	return methods
}

// changedList is the list (an index of listMethods) that e changes for
// member, if the stream honours it; -1 if none.
func changedList(e events.Event, honoured listenFilter, member int) int {
	switch {
	case e.Kind == events.ToolsChanged && honoured.ToolsListChanged && (e.Member == 0 || e.Member == member):
		return 0
	case e.Kind == events.ResourcesChanged && honoured.ResourcesListChanged:
		return 1
	case e.Kind == events.PromptsChanged && honoured.PromptsListChanged:
		return 2
	}
	return -1
}
