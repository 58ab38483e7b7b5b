// The decision view of MCP Apps: shown with the calls only a person may
// allow (tasks_delete, tasks_restore, work_approve). The server asks the
// person to confirm such a call, through the host, before it runs (or, for
// an assistant, waits for a person's decision in the console); the card
// shows the question, the task and the plan, and how it ended, in the
// server's own words, and offers the way back (Restore after a delete,
// Delete after a restore), a call through the host that is confirmed in
// turn. What the person does here is told to the model. An assistant's
// call that waits for a person's decision comes first as the server's
// URL-mode elicitation: the card shows it pending, with the way to the
// decision's page in the console (ui/open-link), and how it ended once
// the host's call ends. The card offers no way to decide in the chat:
// its calls carry the same token as the model's.
(function () {
  "use strict";
  var tool = ""; // the call the card is about
  var args = {};
  var task = null;
  // asked is true once the call waited for a person's decision: the
  // host calls as an assistant, whose way back would wait for one too,
  // so the card offers none.
  var asked = false;

  var questions = {
    tasks_delete: function (a) { return "Delete task " + a.ref + "?"; },
    tasks_restore: function (a) { return "Restore task " + a.ref + "?"; },
    work_approve: function (a) { return "Approve " + a.ref + " for assistants?"; }
  };
  var undo = { tasks_delete: ["tasks_restore", "Restore task"], tasks_restore: ["tasks_delete", "Delete task"] };

  function showTask(t) {
    task = t;
    var box = $("#decision .task");
    box.textContent = "";
    var card = cardElement(t);
    card.removeAttribute("draggable");
    $("form.move", card).remove();
    box.appendChild(card);
  }

  function showQuestion() {
    var q = questions[tool];
    $("#decision .question").textContent = q ? q(args) : "A decision on " + (args.ref || "a task");
    if (args.plan !== undefined) {
      $("#decision .proposal").hidden = false;
      $("#decision .plan").textContent = args.plan;
      $("#decision .limits").textContent = "Each claim lasts " + (args.lease_minutes || 30) + " minutes; it may be claimed " +
        (args.max_claims || 3) + " times in all.";
    }
  }

  function text(res) {
    return (res.content || []).filter(function (c) { return c.type === "text"; }).map(function (c) { return c.text; }).join(" ");
  }

  // decisionPage is the page of the decision res waits for (a URL-mode
  // elicitation of an input_required result), "" for none.
  function decisionPage(res) {
    if (res.resultType !== "input_required") return "";
    var reqs = res.inputRequests || {};
    for (var k in reqs) {
      var r = reqs[k];
      if (r && r.method === "elicitation/create" && r.params && r.params.mode === "url") return r.params.url || "";
    }
    return "";
  }

  // waiting shows that the call waits for a person's decision on page.
  function waiting(page) {
    asked = true;
    $("#decision .outcome").textContent = "Waiting for a person's decision in Taskwire.";
    $("#decision .waiting").hidden = false;
    $("#decision .page").textContent = page;
    $("#decide").dataset.url = page;
    if (!task && args.ref) {
      bridge.callTool("tasks_get", { ref: args.ref }).then(function (r) { showTask(r.task); }, function () {});
    }
    $("#decision").removeAttribute("aria-busy");
  }

  $("#decide").addEventListener("click", function () {
    flash("");
    var page = this.dataset.url;
    bridge.request("ui/open-link", { url: page }).then(function (res) {
      if (res && res.isError) flash("The chat did not open the page: open " + page + " yourself.");
    }, function () { flash("The chat did not open the page: open " + page + " yourself."); });
  });

  // ended shows how the call ended, and the way back when there is one.
  function ended(res) {
    var page = decisionPage(res);
    if (page) {
      waiting(page);
      return;
    }
    if (res.resultType === "input_required") return; // the host asks the person itself
    $("#decision .waiting").hidden = true;
    var sc = res.structuredContent || {};
    // A failure in the server's own words; a success as a sentence (the
    // text of a success is its structuredContent as JSON, for the model).
    var done = { tasks_delete: " is deleted.", tasks_restore: " is restored.", work_approve: " is approved for assistants." }[tool];
    $("#decision .outcome").textContent = res.isError ? (text(res) || "Not done.") : "Done: " + (args.ref || "the task") + (done || ".");
    var back = !res.isError && !asked && undo[tool];
    var button = $("#undo");
    button.hidden = !back;
    if (back) button.textContent = back[1];
    if (sc.task) showTask(sc.task);
    else if (!task && args.ref) {
      bridge.callTool("tasks_get", { ref: args.ref }).then(function (r) { showTask(r.task); }, function () {});
    }
    $("#decision").removeAttribute("aria-busy");
  }

  $("#undo").addEventListener("click", function () {
    var back = undo[tool];
    if (!back) return;
    flash("");
    var ref = args.ref;
    bridge.request("tools/call", { name: back[0], arguments: { ref: ref } }).then(function (res) {
      if (!res.isError) {
        tool = back[0];
        showQuestion();
        bridge.tellModel("In the decision card, the person " + (tool === "tasks_restore" ? "restored " : "deleted ") + ref + ".",
          { task: ref, tool: tool }).catch(function () { /* the change stands */ });
      }
      ended(res);
    }, function (err) { flash(err.message); });
  });

  bridge.on("ui/notifications/tool-input", function (p) {
    args = p.arguments || {};
    tool = bridge.toolName() || (args.plan !== undefined ? "work_approve" : "");
    showQuestion();
  });
  bridge.on("ui/notifications/tool-result", ended);
  bridge.on("ui/notifications/tool-cancelled", function (p) {
    $("#decision .outcome").textContent = "Not done: the call was cancelled" + (p.reason ? " (" + p.reason + ")." : ".");
    $("#decision").removeAttribute("aria-busy");
  });
  bridge.start("taskwire-decision").catch(function (err) { flash(err.message); });
})();
