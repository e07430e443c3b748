/**
 * The View's side of the MCP Apps protocol (2026-01-26), as browser JavaScript: JSON-RPC 2.0 over
 * `window.parent.postMessage`, with the message shapes of ext-apps' `spec.types.d.ts`.
 *
 * Hand-written rather than ext-apps' `App` class: `App` needs `@modelcontextprotocol/client`, its
 * core and zod, and the self-contained `app-with-deps.js` is 541 KB, eight times the 64 KiB a view
 * may weigh. This covers what Loadout's views use: the handshake, host context, the tool
 * notifications, teardown, size changes and `tools/call`.
 *
 * Defines `startBridge(handlers)`, `callTool(name, args)` and `canCallTools()` for the view script.
 * No backticks or `${` here: the text is embedded in a template literal.
 */
export const BRIDGE_JS = String.raw`
var PROTOCOL_VERSION = "2026-01-26";
var CALL_TIMEOUT_MS = 60000;
var bridge = { nextId: 1, pending: new Map(), capabilities: null, context: {}, handlers: {}, size: "", torn: false };

// The view's origin is opaque (sandboxed iframe) and the host's is not known to it: "*" is the
// only target that reaches it, and only window.parent is ever addressed or listened to.
function post(message) { window.parent.postMessage(message, "*"); }
function notify(method, params) { post({ jsonrpc: "2.0", method: method, params: params }); }
function request(method, params, timeoutMs) {
  var id = bridge.nextId++;
  return new Promise(function (resolve, reject) {
    var timer = timeoutMs ? setTimeout(function () {
      bridge.pending.delete(id);
      reject(new Error("The host did not answer " + method + " in " + Math.round(timeoutMs / 1000) + " s."));
    }, timeoutMs) : 0;
    bridge.pending.set(id, { resolve: resolve, reject: reject, timer: timer });
    post({ jsonrpc: "2.0", id: id, method: method, params: params });
  });
}
function answer(id, result) { post({ jsonrpc: "2.0", id: id, result: result }); }
function refuse(id, code, message) { post({ jsonrpc: "2.0", id: id, error: { code: code, message: message } }); }

function canCallTools() { return !!(bridge.capabilities && bridge.capabilities.serverTools); }
function callTool(name, args) {
  if (!canCallTools()) return Promise.reject(new Error("This host does not let views call tools."));
  return request("tools/call", { name: name, arguments: args }, CALL_TIMEOUT_MS);
}

// A host value reaches CSS only as a custom property, and never one that could load something.
var UNSAFE_CSS = /url\(|image\(|image-set\(|@\s*import|[;{}<>]/i;
function applyContext(context) {
  var root = document.documentElement;
  if (context.theme === "light" || context.theme === "dark") root.setAttribute("data-theme", context.theme);
  else root.removeAttribute("data-theme");
  var variables = context.styles && context.styles.variables;
  if (variables && typeof variables === "object") {
    Object.keys(variables).forEach(function (key) {
      var value = variables[key];
      if (/^--[a-z0-9-]+$/i.test(key) && typeof value === "string" && !UNSAFE_CSS.test(value)) root.style.setProperty(key, value);
    });
  }
  var box = context.containerDimensions;
  if (box && typeof box === "object") {
    var px = function (n) { return typeof n === "number" && n > 0 ? n + "px" : ""; };
    root.style.width = px(box.width);
    root.style.maxWidth = px(box.maxWidth);
    root.style.height = px(box.height);
    root.style.maxHeight = px(box.maxHeight);
    root.style.overflow = box.height || box.maxHeight ? "auto" : "";
  }
}

function reportSize() {
  if (bridge.torn) return;
  var rect = document.documentElement.getBoundingClientRect();
  var size = { width: Math.ceil(rect.width), height: Math.ceil(rect.height) };
  var key = size.width + "x" + size.height;
  if (key === bridge.size) return;
  bridge.size = key;
  notify("ui/notifications/size-changed", size);
}

function handleNotification(method, params) {
  var h = bridge.handlers;
  if (method === "ui/notifications/tool-input") h.input(params.arguments || {});
  else if (method === "ui/notifications/tool-input-partial") h.partial(params.arguments || {});
  else if (method === "ui/notifications/tool-result") h.result(params);
  else if (method === "ui/notifications/tool-cancelled") h.cancelled(typeof params.reason === "string" ? params.reason : "");
  else if (method === "ui/notifications/host-context-changed") {
    bridge.context = Object.assign({}, bridge.context, params);
    applyContext(bridge.context);
  }
}

function onMessage(event) {
  if (event.source !== window.parent) return;
  var m = event.data;
  if (!m || typeof m !== "object" || m.jsonrpc !== "2.0") return;
  if (typeof m.method === "string") {
    var params = m.params && typeof m.params === "object" ? m.params : {};
    if (m.id === undefined) {
      try { handleNotification(m.method, params); } catch (e) { showFailure(e); }
    } else if (m.method === "ui/resource-teardown") {
      bridge.torn = true;
      answer(m.id, {});
    } else if (m.method === "ping") answer(m.id, {});
    else refuse(m.id, -32601, "Method not found: " + m.method);
    return;
  }
  var waiting = bridge.pending.get(m.id);
  if (!waiting) return;
  bridge.pending.delete(m.id);
  clearTimeout(waiting.timer);
  if (m.error) waiting.reject(new Error(m.error.message || "The host refused the request."));
  else waiting.resolve(m.result || {});
}

function showFailure(error) {
  setStatus("This view could not show the result (" + (error && error.message ? error.message : String(error)) + "). The tool's text result has the same information.");
}

function startBridge(handlers) {
  bridge.handlers = handlers;
  // Opened outside a host: keep the static fallback text.
  if (window.parent === window) return;
  window.addEventListener("message", onMessage);
  request("ui/initialize", {
    protocolVersion: PROTOCOL_VERSION,
    appInfo: APP_INFO,
    appCapabilities: {}
  }).then(function (result) {
    bridge.capabilities = result.hostCapabilities || {};
    bridge.context = result.hostContext || {};
    applyContext(bridge.context);
    notify("ui/notifications/initialized", {});
    if (typeof ResizeObserver === "function") new ResizeObserver(reportSize).observe(document.documentElement);
    reportSize();
  }, showFailure);
}
`;
