// The task view of MCP Apps: the console's task card inside the chat,
// with its history and comments. It is shown with the result of
// tasks_get, reads the task again with its history and comments, and
// moves it (tasks_move), comments on it (comments_add), approves it for
// assistants with a plan (work_approve), deletes and restores it
// (tasks_delete, tasks_restore) through the host (bridge.js), so the person's role, the audit log and any
// confirmation apply as to every other call. After a change it tells
// the model what the person did.
(function () {
  "use strict";
  var task = null; // tasks_get's task

  function item(list, className, parts) {
    var li = document.createElement("li");
    if (className) li.className = className;
    parts.forEach(function (p) {
      var el = document.createElement(p[0]);
      if (p[1]) el.className = p[1];
      el.textContent = p[2];
      li.appendChild(el);
      li.appendChild(document.createTextNode(" "));
    });
    list.appendChild(li);
    return li;
  }

  // when is a timestamp as the console shows it, in UTC.
  function when(iso) {
    var d = new Date(iso);
    if (!iso || isNaN(d)) return "";
    return d.toISOString().slice(0, 16).replace("T", " ") + " UTC";
  }

  // sentence is what a history entry says happened: its summary, the
  // console's own sentence, which the board writes; an entry without one
  // reads as its action.
  function sentence(h) {
    return h.summary || (h.action || "").replace(".", " ");
  }

  function render(res) {
    task = res.task;
    var main = $("#task");
    main.querySelectorAll(".ref").forEach(function (el) { el.textContent = task.ref; });
    $(".title", main).textContent = task.title || "";
    $(".lane", main).textContent = task.lane || "";
    $(".kind", main).textContent = task.kind || "task";
    $(".size", main).textContent = task.size || "unsized";
    $(".assignees", main).textContent = (task.assignees || []).join(", ") || "nobody";
    $(".labels", main).textContent = (task.labels || []).join(", ") || "none";
    $(".project", main).textContent = task.project || "none";
    var flag = $(".flag-state", main);
    flag.textContent = task.flagged ? (task.flag_reason || "yes") : "no";
    flag.classList.toggle("flag", !!task.flagged);
    $(".version", main).textContent = String(task.version || 0);
    $(".task-note", main).textContent = task.note || "No note.";
    $("#move").elements.lane.value = task.lane;
    $(".work-state", main).textContent = task.work_state ? "Work on this task is " + task.work_state + "." : "Not approved for assistants.";
    var comments = $("#comments");
    comments.textContent = "";
    (res.comments || []).forEach(function (c) {
      var li = item(comments, "comment", [["span", "author", c.author || ""], ["time", "", when(c.created_at)]]);
      var body = document.createElement("div");
      body.className = "body";
      body.textContent = c.body || "";
      li.appendChild(body);
    });
    $(".comment-count", main).textContent = String(res.comment_count || (res.comments || []).length);
    var history = $("#history");
    history.textContent = "";
    (res.history || []).forEach(function (h) {
      item(history, "", [["span", "actor", h.actor || ""], ["span", "did", sentence(h)], ["time", "", when(h.at)]]);
    });
    main.removeAttribute("aria-busy");
  }

  // load reads the task with its history and comments.
  function load(ref) {
    $("#task").setAttribute("aria-busy", "true");
    return bridge.callTool("tasks_get", { ref: ref, include_comments: true, include_history: true })
      .then(render).catch(function (err) {
        $("#task").removeAttribute("aria-busy");
        flash(err.message);
      });
  }

  // change calls tool through the host, tells the model what the person
  // did, and shows the task again; a refusal shows the server's sentence.
  function change(tool, args, told) {
    flash("");
    return bridge.callTool(tool, args).then(function () {
      return bridge.tellModel(told, { task: task.ref, tool: tool })
        .catch(function () { /* the change stands; only the note to the model is lost */ });
    }).then(function () { return load(task.ref); }, function (err) {
      return load(task.ref).then(function () { flash(err.message); });
    });
  }

  document.addEventListener("submit", function (e) {
    e.preventDefault();
    if (!task) return;
    var form = e.target;
    if (form.id === "move") {
      var lane = form.elements.lane.value;
      if (lane === task.lane) return;
      change("tasks_move", { ref: task.ref, lane: lane, expected_version: task.version },
        "In the task view, the person moved " + task.ref + " from " + task.lane + " to " + lane + ".");
    } else if (form.id === "work") {
      // A person's work_approve approves at once; an assistant's asks a
      // person (a decision in the console), as the server decides.
      var f = form.elements;
      change("work_approve", {
        ref: task.ref, plan: f.plan.value, lease_minutes: Number(f.lease_minutes.value),
        max_claims: Number(f.max_claims.value), expected_version: task.version
      }, "In the task view, the person approved " + task.ref + " for assistants, with this plan: " + f.plan.value);
    } else if (form.id === "comment") {
      var body = form.elements.body.value;
      if (!body.trim()) return;
      change("comments_add", { ref: task.ref, body: body },
        "In the task view, the person commented on " + task.ref + ": " + body).then(function () {
        if (!$("#flash").textContent) form.elements.body.value = "";
      });
    }
  });

  // deleted shows whether the task is deleted: then only Restore is left.
  function deleted(yes) {
    $("#task .deleted").hidden = !yes;
    $("#delete-task").hidden = yes;
    $("#restore-task").hidden = !yes;
    ["#move", "#comment", "#work"].forEach(function (sel) {
      $(sel).querySelectorAll("button, select, textarea, input").forEach(function (el) { el.disabled = yes; });
    });
  }

  // Delete and Restore are destructive calls: the server asks the person
  // to confirm, through the host, before it runs them.
  document.addEventListener("click", function (e) {
    if (!task || !e.target.closest) return;
    var del = e.target.closest("#delete-task"), restore = e.target.closest("#restore-task");
    if (!del && !restore) return;
    var tool = del ? "tasks_delete" : "tasks_restore";
    flash("");
    bridge.callTool(tool, { ref: task.ref }).then(function () {
      deleted(!!del);
      var told = "In the task view, the person " + (del ? "deleted " : "restored ") + task.ref + ".";
      return bridge.tellModel(told, { task: task.ref, tool: tool }).catch(function () { /* the change stands */ });
    }).then(function () {
      if (restore) return load(task.ref);
    }, function (err) { flash(err.message); });
  });

  bridge.on("ui/notifications/tool-result", function (res) {
    var sc = res.structuredContent;
    if (res.isError || !sc || !sc.task) {
      flash("The task could not be read: ask again for the task.");
      return;
    }
    render(sc);
    load(sc.task.ref);
  });
  bridge.start("taskwire-task").catch(function (err) { flash(err.message); });
})();
