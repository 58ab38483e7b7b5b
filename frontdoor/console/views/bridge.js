// The view's side of the MCP Apps bridge (io.modelcontextprotocol/ui):
// JSON-RPC 2.0 over postMessage with the host page, which holds the MCP
// connection. The view asks the host (ui/initialize, tools/call,
// ui/update-model-context) and hears from it (the tool's input and
// result). Written by hand: the view needs these few messages, and the
// SDK's App class would add a bundle of half a megabyte to every view.
var bridge = (function () {
  "use strict";
  var nextId = 1;
  var pending = {};
  var handlers = {};
  var host = {}; // the host's capabilities
  var context = {}; // the host's context: the tool the view shows, …

  function send(msg) {
    msg.jsonrpc = "2.0";
    // The view runs in a sandbox without an origin of its own and does
    // not know the host's: the host checks that messages come from this
    // frame.
    window.parent.postMessage(msg, "*");
  }

  // request asks the host and resolves with the result, or rejects with
  // an Error carrying the host's message.
  function request(method, params) {
    var id = nextId++;
    return new Promise(function (resolve, reject) {
      pending[id] = { resolve: resolve, reject: reject };
      send({ id: id, method: method, params: params || {} });
    });
  }

  function notify(method, params) {
    send({ method: method, params: params || {} });
  }

  function answer(m) {
    if (m.method === "ping" || m.method === "ui/resource-teardown") {
      send({ id: m.id, result: {} });
      return;
    }
    send({ id: m.id, error: { code: -32601, message: "method not found: " + m.method } });
  }

  window.addEventListener("message", function (e) {
    if (e.source !== window.parent) return;
    var m = e.data;
    if (!m || m.jsonrpc !== "2.0") return;
    if (m.method === undefined) {
      var p = pending[m.id];
      if (!p) return;
      delete pending[m.id];
      if (m.error) p.reject(new Error(m.error.message || "The host refused the request."));
      else p.resolve(m.result);
      return;
    }
    if (m.id !== undefined) {
      answer(m);
      return;
    }
    var h = handlers[m.method];
    if (h) h(m.params || {});
  });

  // callTool calls one of our tools through the host, as the person the
  // host signed in, and resolves with its structuredContent; a tool's
  // failure (isError) rejects with the tool's own sentence.
  function callTool(name, args) {
    return request("tools/call", { name: name, arguments: args }).then(function (res) {
      if (res && res.isError) {
        var text = (res.content || []).filter(function (c) { return c.type === "text"; })
          .map(function (c) { return c.text; }).join(" ");
        throw new Error(text || name + " failed.");
      }
      return (res && res.structuredContent) || {};
    });
  }

  // tellModel tells the model what the person did in the view: as the
  // view's model context when the host takes it (it replaces what the
  // view told before, and the host hands it to the model with the
  // person's next message), else as a message of the person's in the
  // chat when the host takes those; a host that takes neither is told
  // nothing.
  function tellModel(text, structured) {
    if (host.updateModelContext) {
      return request("ui/update-model-context", { content: [{ type: "text", text: text }], structuredContent: structured });
    }
    if (host.message) return request("ui/message", { role: "user", content: [{ type: "text", text: text }] });
    return Promise.resolve();
  }

  // reportSize tells the host how tall the view is, so that it can size
  // the frame to fit.
  function reportSize() {
    var el = document.documentElement;
    notify("ui/notifications/size-changed", { width: el.scrollWidth, height: el.scrollHeight });
  }

  // start shakes hands with the host; on(method, fn) must be set first.
  function start(name) {
    return request("ui/initialize", {
      appInfo: { name: name, version: "1" },
      appCapabilities: {},
      protocolVersion: "2026-01-26"
    }).then(function (res) {
      host = (res && res.hostCapabilities) || {};
      context = (res && res.hostContext) || {};
      notify("ui/notifications/initialized", {});
      if (window.ResizeObserver) new ResizeObserver(reportSize).observe(document.documentElement);
    });
  }

  // toolName is the name of the tool whose call the view shows, when the
  // host says (hostContext.toolInfo); "" otherwise.
  function toolName() {
    return (context.toolInfo && context.toolInfo.tool && context.toolInfo.tool.name) || "";
  }

  return {
    on: function (method, fn) { handlers[method] = fn; },
    request: request,
    toolName: toolName,
    start: start,
    callTool: callTool,
    tellModel: tellModel
  };
})();
