// The board view of MCP Apps: the console's board (lanes, cards,
// filters) inside the chat. It is shown with the result of boards_get,
// reads the cards with tasks_list and moves them with tasks_move, each
// through the host (bridge.js), so the person's role, the audit log and
// any confirmation apply as to every other call. After a move it tells
// the model what the person changed.
(function () {
  "use strict";
  var board = null; // boards_get's structuredContent
  var maxPages = 5; // of 100 cards each

  function option(select, value, label) {
    var o = document.createElement("option");
    o.value = value;
    o.textContent = label;
    select.appendChild(o);
  }

  // fillFilters offers the board's kinds, labels and projects, as the
  // console's filters do.
  function fillFilters() {
    var f = $("#filters");
    [["kind", board.kinds || [], null], ["label", board.labels || [], "value"], ["project", board.projects || [], "value"]]
      .forEach(function (spec) {
        var select = f.elements[spec[0]];
        var keep = select.value;
        while (select.options.length > 1) select.remove(1);
        spec[1].forEach(function (v) {
          if (spec[2]) option(select, v.value, v.value + " (" + v.count + ")");
          else option(select, v, v);
        });
        select.value = keep;
      });
  }

  // listArgs are tasks_list's arguments for the board and the filters set.
  function listArgs() {
    var f = $("#filters").elements;
    var args = { board: board.board.slug, sort: "position", limit: 100 };
    ["assignee", "label", "project", "kind"].forEach(function (k) { if (f[k].value) args[k] = f[k].value; });
    if (f.flagged.value) args.flagged = f.flagged.value === "yes";
    if (f.q.value) args.text = f.q.value;
    return args;
  }

  // loadCards reads the board's cards, a page at a time.
  function loadCards() {
    var args = listArgs();
    var cards = [];
    function page(n) {
      return bridge.callTool("tasks_list", args).then(function (res) {
        cards = cards.concat(res.items || []);
        if (!res.next_cursor || n + 1 >= maxPages) return { cards: cards, more: !!res.next_cursor };
        args.cursor = res.next_cursor;
        return page(n + 1);
      });
    }
    return page(0);
  }

  // render shows the board and its cards in the console's lanes.
  function render(list) {
    var main = $("#board");
    $("h1", main).textContent = board.board.name + (board.board.archived ? " (archived)" : "");
    main.dataset.board = board.board.slug;
    $(".more", main).hidden = !list.more;
    var info = {};
    (board.lanes || []).forEach(function (l) { info[l.lane] = l; });
    main.querySelectorAll("section.lane").forEach(function (sec) {
      var l = info[sec.dataset.lane] || {};
      var count = l.count || 0;
      var wip = $(".wip", sec);
      wip.textContent = count + (l.wip_limit ? " / " + l.wip_limit : "");
      wip.dataset.count = String(count);
      wip.dataset.limit = String(l.wip_limit || 0);
      var over = !!l.wip_limit && count > l.wip_limit;
      sec.classList.toggle("over", over);
      sec.querySelectorAll("article.card, p.wip-over").forEach(function (el) { el.remove(); });
      if (over) {
        var note = document.createElement("p");
        note.className = "wip-over";
        note.textContent = "Over its WIP limit of " + l.wip_limit + ".";
        sec.appendChild(note);
      }
      list.cards.filter(function (t) { return t.lane === sec.dataset.lane; })
        .forEach(function (t) { sec.appendChild(cardElement(t)); });
    });
    main.removeAttribute("aria-busy");
  }

  // refresh reads the board and its cards again and shows them.
  function refresh() {
    $("#board").setAttribute("aria-busy", "true");
    return bridge.callTool("boards_get", { board: board.board.slug }).then(function (res) {
      if (res.board) board = res;
      fillFilters();
      return loadCards();
    }).then(render).catch(function (err) {
      $("#board").removeAttribute("aria-busy");
      flash(err.message);
    });
  }

  // move moves the card to lane (at position, or the bottom) through
  // tasks_move, with the version shown so that a change made meanwhile
  // is refused rather than overwritten; then tells the model.
  function move(card, lane, position) {
    if (!board) return;
    var ref = card.dataset.ref;
    var from = card.dataset.lane;
    if (lane === from && position === undefined) return;
    var args = { ref: ref, lane: lane, expected_version: Number(card.dataset.version) };
    if (position !== undefined) args.position = position;
    flash("");
    return bridge.callTool("tasks_move", args).then(function () {
      var text = "In the board view, the person moved " + ref + " from " + from + " to " + lane +
        " on board " + board.board.slug + ".";
      return bridge.tellModel(text, { moved: { ref: ref, board: board.board.slug, from: from, to: lane } })
        .catch(function () { /* the move stands; only the note to the model is lost */ });
    }).then(refresh, function (err) {
      return refresh().then(function () { flash(err.message); });
    });
  }

  // Dragging a card onto a lane moves it (drag.js, the console's own).
  taskwireDrag(move);

  // The keyboard's way: the card's lane select and its Move button.
  document.addEventListener("submit", function (e) {
    e.preventDefault();
    var form = e.target;
    if (form.id === "filters") {
      if (board) refresh();
      return;
    }
    var card = form.closest("article.card");
    if (card) move(card, form.elements.lane.value);
  });

  bridge.on("ui/notifications/tool-result", function (res) {
    var sc = res.structuredContent;
    if (res.isError || !sc || !sc.board) {
      flash("The board could not be read: ask again for the board.");
      return;
    }
    board = sc;
    fillFilters();
    loadCards().then(render).catch(function (err) { flash(err.message); });
  });
  bridge.start("taskwire-board").catch(function (err) { flash(err.message); });
})();
