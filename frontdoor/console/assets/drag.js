// Drag and drop of a board's cards, one script for both boards: the
// console's (console.js, which submits the card's move form) and the
// board view of MCP Apps (views/board.js, which calls tasks_move through
// the chat's host). taskwireDrag(onDrop) listens on the document and
// calls onDrop(card, lane, position) when a card is dropped on a lane:
// position is the number of other cards above the drop point.
var taskwireDrag = (function () {
  "use strict";

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

  return function (onDrop) {
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
      onDrop(dragged, lane.dataset.lane, positionIn(lane, dragged, e.clientY));
    });
  };
})();
