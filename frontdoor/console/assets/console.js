// Taskwire console: drag and drop of cards, live updates, and messages
// for htmx requests that failed. Loaded as a file (the CSP allows no
// inline script); every change still goes through a form that works
// without it.
(function () {
  "use strict";

  // flash shows a message in the page's alert region.
  function flash(text) {
    var region = document.getElementById("flash");
    if (!region) return;
    region.textContent = "";
    var p = document.createElement("p");
    p.className = "message";
    p.textContent = text;
    region.appendChild(p);
  }

  // positionIn is where a card dropped at clientY lands in lane: the
  // number of other cards above that point.
  function positionIn(lane, card, clientY) {
    var cards = lane.querySelectorAll("article.card");
    var pos = 0;
    for (var i = 0; i < cards.length; i++) {
      if (cards[i] === card) continue;
      var box = cards[i].getBoundingClientRect();
      if (clientY > box.top + box.height / 2) pos++;
    }
    return pos;
  }

  // moveCard submits the card's own move form with the new lane and
  // position, the same request the keyboard's Move button sends.
  function moveCard(card, laneName, position) {
    var form = card.querySelector("form.move");
    if (!form) return;
    form.elements.lane.value = laneName;
    form.elements.position.value = String(position);
    if (form.requestSubmit) form.requestSubmit(); else form.submit();
  }

  var dragged = null;
  document.addEventListener("dragstart", function (e) {
    var card = e.target.closest && e.target.closest("article.card");
    if (!card) return;
    dragged = card;
    card.classList.add("dragging");
    e.dataTransfer.effectAllowed = "move";
    e.dataTransfer.setData("text/plain", card.dataset.ref);
  });
  document.addEventListener("dragend", function () {
    if (dragged) dragged.classList.remove("dragging");
    dragged = null;
    document.querySelectorAll("section.lane.drop-target").forEach(function (l) { l.classList.remove("drop-target"); });
  });
  document.addEventListener("dragover", function (e) {
    var lane = e.target.closest && e.target.closest("section.lane");
    if (!lane || !dragged) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = "move";
    lane.classList.add("drop-target");
  });
  document.addEventListener("dragleave", function (e) {
    var lane = e.target.closest && e.target.closest("section.lane");
    if (lane && !lane.contains(e.relatedTarget)) lane.classList.remove("drop-target");
  });
  document.addEventListener("drop", function (e) {
    var lane = e.target.closest && e.target.closest("section.lane");
    if (!lane || !dragged) return;
    e.preventDefault();
    lane.classList.remove("drop-target");
    moveCard(dragged, lane.dataset.lane, positionIn(lane, dragged, e.clientY));
  });

  // htmx answers that are errors carry the message as text.
  document.addEventListener("htmx:responseError", function (e) {
    flash(e.detail.xhr.responseText || "The change failed. Reload the page and try again.");
  });
  document.addEventListener("htmx:sendError", function () {
    flash("Taskwire could not be reached. Check your connection and try again.");
  });
  document.addEventListener("htmx:afterSwap", function () {
    var region = document.getElementById("flash");
    if (region) region.textContent = "";
  });

  // focusKey names the focused element so that it can be found again in
  // a refreshed part of the page: by its id, or by its card's ref and its
  // tag and name. Null when nothing in particular has the focus.
  function focusKey() {
    var el = document.activeElement;
    if (!el || el === document.body) return null;
    if (el.id) return "#" + CSS.escape(el.id);
    var card = el.closest("[data-ref]");
    if (!card) return null;
    return '[data-ref="' + CSS.escape(card.dataset.ref) + '"] ' + el.tagName.toLowerCase() +
      (el.name ? '[name="' + CSS.escape(el.name) + '"]' : "");
  }

  // refresh reloads the part of the page that shows what changed: the
  // board, or the decisions inbox. Bursts of events make one request. A
  // keyboard user keeps their place: the focus goes back to the same
  // control in the new part.
  var pending = null;
  function refresh(selector) {
    if (!document.querySelector(selector) || pending) return;
    if (document.querySelector(".dragging")) return; // do not pull a card from under the pointer
    pending = setTimeout(function () {
      pending = null;
      if (!window.htmx) return;
      var key = focusKey();
      window.htmx.ajax("GET", window.location.href, { target: selector, select: selector, swap: "outerHTML" }).then(function () {
        var el = key && document.querySelector(key);
        if (el && document.activeElement !== el) el.focus();
      });
    }, 150);
  }

  // Copy buttons (data-copy names the element whose text or value is
  // copied): a token, an invitation link, a client's configuration.
  document.addEventListener("click", function (e) {
    var button = e.target.closest && e.target.closest("button[data-copy]");
    if (!button) return;
    var el = document.getElementById(button.dataset.copy);
    if (!el) return;
    var text = el.value !== undefined ? el.value : el.textContent;
    if (!navigator.clipboard) {
      if (el.select) el.select();
      flash("Copying needs a secure connection here: the text is selected, copy it with your keyboard.");
      return;
    }
    navigator.clipboard.writeText(text).then(function () {
      button.dataset.copied = "true";
      flash("Copied.");
    }, function () {
      if (el.select) el.select();
      flash("The browser did not allow copying: the text is selected, copy it with your keyboard.");
    });
  });

  // Live updates: the tenant's events stream, where the page has one.
  var url = document.body.dataset.events;
  if (url && window.EventSource) {
    var source = new EventSource(url);
    source.addEventListener("open", function () { document.body.dataset.live = "connected"; });
    source.addEventListener("error", function () {
      if (source.readyState === EventSource.CLOSED) document.body.dataset.live = "off";
      else document.body.dataset.live = "reconnecting";
    });
    source.addEventListener("board", function () { refresh("#board"); });
    source.addEventListener("decisions", function () { refresh("#decision-list"); });
  }
})();
