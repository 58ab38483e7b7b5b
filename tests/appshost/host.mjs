// The host page of the MCP Apps browser tests: a chat host as the
// ext-apps SDK's own example host builds one, on the SDK's AppBridge.
// It finds the view of a tool in tools/list (_meta.ui.resourceUri),
// reads it with resources/read, loads it in a sandbox proxy of another
// origin that applies the view's _meta.ui.csp as the page's
// Content-Security-Policy, and answers the view over the bridge: its
// tools/call go to Taskwire as the person the test signed in (the test
// server at /mcp/* holds the token), its model context and messages are
// kept for the test to read.
//
// Rebuild tests/testdata/appshost/host.js with `go generate ./tests`.
import {
  AppBridge,
  PostMessageTransport,
  getToolUiResourceUri,
} from "@modelcontextprotocol/ext-apps/app-bridge";

// mcp sends one request to Taskwire through the test server and
// returns its result, or throws with the JSON-RPC error's message.
async function mcp(method, params) {
  const res = await fetch("/mcp/" + method, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(params || {}),
  });
  const msg = await res.json();
  if (msg.error) throw new Error(msg.error.message);
  return msg.result;
}

const host = {
  calls: [], // every tools/call the view made: {name, arguments, isError}
  modelContext: [], // every ui/update-model-context
  links: [], // every URL the view asked the host to open (ui/open-link)
  messages: [], // every ui/message
  error: "",
  initialized: false,
};
window.appsHost = host;

async function show() {
  const q = new URLSearchParams(location.search);
  const toolName = q.get("tool");
  const args = JSON.parse(q.get("args") || "{}");
  if (q.get("ask")) document.getElementById("ask").textContent = q.get("ask");
  const tools = await mcp("tools/list", {});
  const tool = tools.tools.find((t) => t.name === toolName);
  const uri = tool && getToolUiResourceUri(tool);
  if (!uri) throw new Error("tools/list names no view for " + toolName);
  const read = await mcp("resources/read", { uri });
  const view = read.contents[0];
  const ui = (view._meta && view._meta.ui) || {};
  host.csp = ui.csp;

  const frame = document.createElement("iframe");
  frame.id = "view";
  frame.title = "Taskwire";
  frame.setAttribute("sandbox", "allow-scripts allow-same-origin allow-forms");
  frame.src = q.get("sandbox") + "/sandbox.html?csp=" + encodeURIComponent(JSON.stringify(ui.csp || {}));
  if (ui.prefersBorder) frame.className = "bordered";
  document.getElementById("chat").appendChild(frame);

  // A host takes the view's model context unless the test says
  // context=no; it always takes messages.
  const caps = { serverTools: {}, message: { text: {} }, openLinks: {} };
  if (q.get("context") !== "no") caps.updateModelContext = { text: {}, structuredContent: {} };
  const bridge = new AppBridge(
    null,
    { name: "taskwire-test-host", version: "1.0.0" },
    caps,
    {
      hostContext: {
        toolInfo: { tool },
        theme: "light",
        displayMode: "inline",
        platform: "web",
        containerDimensions: { maxHeight: 900 },
      },
    },
  );
  bridge.oncalltool = async (params) => {
    const result = await callTool(params);
    host.calls.push({ name: params.name, arguments: params.arguments, isError: !!result.isError });
    return result;
  };
  bridge.onupdatemodelcontext = async (params) => {
    host.modelContext.push(params);
    return {};
  };
  bridge.onmessage = async (params) => {
    host.messages.push(params);
    return {};
  };
  // The host opens a link the view asks for, as a chat host opens one
  // in the person's browser; the test reads which it was asked for.
  bridge.onopenlink = async ({ url }) => {
    host.links.push(url);
    return {};
  };
  bridge.onsizechange = ({ height }) => {
    if (height != null) frame.style.height = height + "px";
  };
  bridge.onsandboxready = () => {
    host.probe = probe(frame);
    bridge.sendSandboxResourceReady({ html: view.text, csp: ui.csp });
  };
  bridge.oninitialized = async () => {
    host.initialized = true;
    await bridge.sendToolInput({ arguments: args });
    // A call waiting for a person's decision in Taskwire is shown to the
    // view as it is (the URL-mode elicitation), and the view shows the
    // person the way to the decision's page; its result follows.
    const pending = (result) => bridge.sendToolResult(result);
    await bridge.sendToolResult(await callTool({ name: toolName, arguments: args }, pending));
  };
  await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
}

// callTool calls a tool of Taskwire's. A call that needs the person's
// answer first (a confirmation) gets it from the person, in the host's
// own dialog, and is made again with the answers, as a 2026-07-28 client
// does. A call that sends the person to a page (a URL-mode elicitation:
// an assistant's call waiting for a person's decision in the console) is
// handed to pending, if given, which shows the person the page's link;
// the host calls again with the state until the decision is made, as a
// client does once the person has been sent to the page.
async function callTool(params, pending) {
  let result = await mcp("tools/call", params);
  while (result.resultType === "input_required") {
    const answers = {};
    const toPage = urlElicitation(result);
    if (toPage && pending) {
      await pending(result);
      pending = null; // shown once; the same page comes back until decided
    }
    for (const [key, req] of Object.entries(result.inputRequests || {})) {
      answers[key] = req === toPage ? await later({ action: "accept" }) : await ask(req);
    }
    result = await mcp("tools/call", { ...params, inputResponses: answers, requestState: result.requestState });
  }
  return result;
}

// urlElicitation is the URL-mode elicitation result asks for, if any.
function urlElicitation(result) {
  return Object.values(result.inputRequests || {}).find(
    (req) => req.method === "elicitation/create" && req.params.mode === "url",
  );
}

// later resolves with answer after a moment: how long a host waits
// before asking the server again whether the person has decided.
function later(answer) {
  return new Promise((resolve) => setTimeout(() => resolve(answer), 500));
}

// ask asks the person an elicitation of the server's in the host's own
// dialog, outside the view: a form's message, answered Confirm or
// Decline. Any other request is declined.
function ask(req) {
  if (req.method !== "elicitation/create" || req.params.mode !== "form") return Promise.resolve({ action: "decline" });
  const dialog = document.getElementById("confirm");
  dialog.querySelector("p").textContent = req.params.message;
  dialog.hidden = false;
  return new Promise((resolve) => {
    dialog.onclick = (e) => {
      const yes = e.target.id === "confirm-accept";
      if (!yes && e.target.id !== "confirm-decline") return;
      dialog.hidden = true;
      resolve(yes ? { action: "accept", content: { confirm: true } } : { action: "decline" });
    };
  });
}

// probe returns a function that asks the test's sandbox proxy to look
// at or act on the view (which shares its origin) and resolves with the
// answer; the answers come on a channel of their own, not the bridge's.
function probe(frame) {
  let next = 1;
  const waiting = {};
  const channel = new MessageChannel();
  channel.port1.onmessage = (e) => {
    const w = waiting[e.data.id];
    delete waiting[e.data.id];
    if (w) w(e.data.answer);
  };
  frame.contentWindow.postMessage({ taskwireProbe: "connect" }, "*", [channel.port2]);
  return (what, args) =>
    new Promise((resolve) => {
      const id = next++;
      waiting[id] = resolve;
      channel.port1.postMessage({ id, what, args: args || {} });
    });
}

show().catch((err) => {
  host.error = String(err && err.message ? err.message : err);
});
