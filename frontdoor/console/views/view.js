// What the views' scripts share: $ finds an element, flash shows a
// message in the view's alert region (as console.js does on a page),
// cardElement makes a task's card.
function $(sel, root) { return (root || document).querySelector(sel); }

function flash(text) {
  var region = $("#flash");
  region.textContent = "";
  if (!text) return;
  var p = document.createElement("p");
  p.className = "message";
  p.textContent = text;
  region.appendChild(p);
}

// cardElement is the console's card (templates/parts.html, rendered
// empty into #card-template) filled in with task.
function cardElement(task) {
  var card = $("#card-template").content.firstElementChild.cloneNode(true);
  card.dataset.ref = task.ref;
  card.dataset.version = String(task.version || 0);
  card.dataset.lane = task.lane;
  if (task.flagged) card.classList.add("flagged");
  card.querySelectorAll(".ref").forEach(function (el) { el.textContent = task.ref; });
  // The title is a link to the task's page in the console; in the
  // chat it is the card's text.
  $("a.card-title", card).removeAttribute("href");
  $(".title", card).textContent = task.title || "";
  $(".kind", card).textContent = task.kind || "task";
  $(".size", card).textContent = task.size || "unsized";
  if (task.flagged) {
    var flag = document.createElement("span");
    flag.className = "flag";
    flag.title = task.flag_reason || "";
    flag.textContent = "flagged";
    $(".meta", card).appendChild(flag);
  }
  if ((task.assignees || []).length) {
    var who = document.createElement("ul");
    who.className = "assignees";
    who.setAttribute("aria-label", "Assignees");
    task.assignees.forEach(function (handle) {
      var li = document.createElement("li");
      li.className = "assignee";
      li.textContent = handle;
      who.appendChild(li);
    });
    $(".meta", card).after(who);
  }
  var form = $("form.move", card);
  form.elements.version.value = String(task.version || 0);
  form.elements.lane.value = task.lane;
  return card;
}
