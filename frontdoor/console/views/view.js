// What every view's script uses: $ finds an element, flash shows a
// message in the view's alert region (as console.js does on a page).
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
