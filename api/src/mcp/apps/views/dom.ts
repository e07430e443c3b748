/**
 * DOM helpers every view script uses, as browser JavaScript. Text from a tool result only ever
 * reaches the page as `textContent` or a text node (and as attribute values of `title` and
 * `aria-*`): skill text is untrusted, and a script injected into a view could call tools through
 * the host.
 *
 * The limits bound what one view renders, so a huge result cannot freeze the host's page.
 */
export const DOM_JS = String.raw`
var MAX_ITEMS = 500;
var MAX_CHARS = 200000;

function h(tag, props, children) {
  var node = document.createElement(tag);
  if (props) Object.keys(props).forEach(function (key) {
    var value = props[key];
    if (value === undefined || value === null || value === false) return;
    if (key === "text") node.textContent = String(value);
    else if (key === "class") node.className = value;
    else if (key.slice(0, 2) === "on") node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : String(value));
  });
  append(node, children);
  return node;
}
function append(node, children) {
  if (children === undefined || children === null) return node;
  (Array.isArray(children) ? children : [children]).forEach(function (child) {
    if (child === undefined || child === null || child === false) return;
    node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
  });
  return node;
}
function byId(id) { return document.getElementById(id); }
function setStatus(text, pending) {
  var status = byId("status");
  status.textContent = text || "";
  status.className = pending ? "muted pending" : "muted";
}
function show(nodes) {
  setStatus("");
  var view = byId("view");
  view.replaceChildren();
  append(view, nodes);
}
function count(n) { return Number(n).toLocaleString("en-US"); }
function plural(n, one, many) { return count(n) + " " + (n === 1 ? one : many); }
function bytes(n) {
  if (typeof n !== "number" || !isFinite(n)) return "?";
  if (n < 1024) return plural(n, "byte", "bytes");
  if (n < 1048576) return (n / 1024).toFixed(1) + " KiB";
  return (n / 1048576).toFixed(1) + " MiB";
}
function shortDigest(digest) {
  var s = String(digest || "");
  var hex = s.indexOf(":") >= 0 ? s.slice(s.indexOf(":") + 1) : s;
  return hex.slice(0, 12);
}
function note(text) { return h("p", { class: "note", role: "note", text: text }); }
function errorBox(text) { return h("p", { class: "error", role: "alert", text: text }); }
function resultText(result) {
  var content = Array.isArray(result && result.content) ? result.content : [];
  return content.filter(function (c) { return c && c.type === "text" && typeof c.text === "string"; })
    .map(function (c) { return c.text; }).join("\n\n");
}
function isObject(v) { return !!v && typeof v === "object" && !Array.isArray(v); }
function cancelledText(reason) { return "The tool call was cancelled" + (reason ? " (" + reason + ")" : "") + "."; }
/** A result this view cannot read as structured data: its text, bounded. */
function plainResult(result) {
  var text = resultText(result);
  var nodes = [h("pre", { class: "wrap", text: text.slice(0, MAX_CHARS) || "The tool returned no text." })];
  if (text.length > MAX_CHARS)
    nodes.push(note("Showing the first " + count(MAX_CHARS) + " of " + count(text.length) + " characters; the agent has the whole result."));
  return nodes;
}
`;
