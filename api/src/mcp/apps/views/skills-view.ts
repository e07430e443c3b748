/**
 * The skills view's script and styles, as browser JavaScript: a `skills(action="list")` result
 * becomes a searchable, keyboard-operable browser; a `skills(action="get")` result becomes the
 * document (Markdown, frontmatter table), its file list and a file viewer that pages with
 * `next_start`. The only tool it ever calls is `skills` with action "get", and only when the host
 * declares `serverTools`.
 */
export const SKILLS_CSS = `
.items{list-style:none;margin:8px 0;padding:0;display:grid;gap:6px}
.item{display:block;width:100%;text-align:left;padding:8px 10px;border:1px solid var(--line);border-radius:var(--radius);background:var(--bg)}
button.item:hover{background:var(--bg2)}
.item .name{font-weight:600}
.item .desc{display:block;color:var(--fg2);margin-top:2px}
.files td:nth-child(2),.files td:nth-child(3){white-space:nowrap}
.files button{padding:0 4px;border:0;background:none;text-decoration:underline;text-align:left}
.files [aria-current=true]{font-weight:600;text-decoration:none}
.frontmatter td{white-space:pre-wrap}
.frontmatter caption{text-align:left;font-size:.85em}
blockquote{margin:6px 0;padding:0 10px;border-left:3px solid var(--line);color:var(--fg2)}
.back{margin-bottom:8px}
@media (max-width:480px){.files th:nth-child(3),.files td:nth-child(3){display:none}}
`;

export const SKILLS_JS = String.raw`
var state = { items: null, query: "", doc: null };

function words(text) { return String(text).toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean); }
function matches(item, query) {
  var wanted = words(query);
  if (!wanted.length) return true;
  var hay = (String(item.name) + " " + String(item.description || "")).toLowerCase();
  return wanted.every(function (w) { return hay.indexOf(w) >= 0; });
}
function originLabel(origin) {
  var s = String(origin || "");
  var colon = s.indexOf(":");
  if (colon < 0) return s;
  return s.slice(0, colon) + " " + s.slice(colon + 1);
}
function askAgent(args) {
  return "skills(" + Object.keys(args).map(function (k) { return k + "=" + JSON.stringify(args[k]); }).join(", ") + ")";
}
function flash(node) {
  var view = byId("view");
  var old = byId("flash");
  if (old) old.remove();
  node.id = "flash";
  view.insertBefore(node, view.firstChild);
}
function focusTitle() {
  var title = document.querySelector("#view h1");
  if (title) { title.setAttribute("tabindex", "-1"); title.focus(); }
}

function showList(focusName) {
  var items = state.items || [];
  if (!items.length) return show([h("h1", { text: "Skills and personas" }), h("p", { text: "No skills or personas are active in this session." })]);
  var list = h("ul", { id: "items", class: "items", "aria-label": "Skills and personas" });
  var summary = h("p", { id: "summary", class: "muted", "aria-live": "polite" });
  var more = h("div");
  var search = h("input", {
    type: "search", id: "search", placeholder: "Search by name or description",
    "aria-controls": "items", "aria-describedby": "summary", autocomplete: "off",
    oninput: function () { state.query = search.value; fill(); },
    onkeydown: function (e) {
      if (e.key === "ArrowDown") { var first = list.querySelector("button"); if (first) { e.preventDefault(); first.focus(); } }
      else if (e.key === "Escape" && search.value) { search.value = ""; state.query = ""; fill(); }
    }
  });
  search.value = state.query;
  list.addEventListener("keydown", function (e) {
    var buttons = Array.prototype.slice.call(list.querySelectorAll("button"));
    var at = buttons.indexOf(document.activeElement);
    if (at < 0) return;
    var to = e.key === "ArrowDown" ? at + 1 : e.key === "ArrowUp" ? at - 1 : e.key === "Home" ? 0 : e.key === "End" ? buttons.length - 1 : null;
    if (e.key === "Escape") { e.preventDefault(); search.focus(); return; }
    if (to === null) return;
    e.preventDefault();
    if (to < 0) search.focus();
    else if (buttons[Math.min(to, buttons.length - 1)]) buttons[Math.min(to, buttons.length - 1)].focus();
  });
  function fill() {
    var found = items.filter(function (item) { return matches(item, state.query); });
    list.replaceChildren();
    append(list, found.slice(0, MAX_ITEMS).map(itemNode));
    summary.textContent = words(state.query).length
      ? plural(found.length, "match", "matches") + " of " + plural(items.length, "item", "items")
      : plural(items.length, "item", "items");
    more.replaceChildren();
    if (found.length > MAX_ITEMS)
      more.appendChild(note(count(found.length - MAX_ITEMS) + " more not shown: this view shows " + count(MAX_ITEMS) + " at a time. Search to narrow the list, or ask the agent for " + askAgent({ action: "get", name: "<name>" }) + "."));
  }
  fill();
  var nodes = [
    h("h1", { text: "Skills and personas" }),
    h("label", { for: "search", class: "sr", text: "Search skills and personas" }),
    search, summary, list, more
  ];
  if (!canCallTools()) nodes.splice(1, 0, note("This host does not let the view open an item. Ask the agent for " + askAgent({ action: "get", name: "<name>" }) + "."));
  show(nodes);
  var target = focusName && Array.prototype.slice.call(list.querySelectorAll("button")).filter(function (b) { return b.dataset.name === focusName; })[0];
  if (target) target.focus();
}

function itemNode(item) {
  var parts = [
    h("span", { class: "row" }, [
      h("span", { class: "name", text: String(item.name) }),
      item.kind === "persona" ? h("span", { class: "badge", text: "persona" }) : null,
      h("span", { class: "badge", text: originLabel(item.origin) }),
      typeof item.tokens === "number" ? h("span", { class: "muted", text: "~" + plural(item.tokens, "token", "tokens") }) : null
    ]),
    h("span", { class: "desc", text: String(item.description || "") })
  ];
  var body = canCallTools()
    ? h("button", { type: "button", class: "item", "data-name": String(item.name), onclick: function () { open({ action: "get", name: String(item.name) }); } }, parts)
    : h("div", { class: "item" }, parts);
  return h("li", null, body);
}

function chunkOf(sc, result) {
  var first = Array.isArray(result.content) && result.content[0] && typeof result.content[0].text === "string" ? result.content[0].text : "";
  var start = typeof sc.start === "number" ? sc.start : 0;
  var end = typeof sc.next_start === "number" ? sc.next_start : sc.total_chars;
  // The structured offsets say exactly where the chunk ends and the server's notes begin.
  if (typeof end === "number" && end >= start && end - start <= first.length) return first.slice(0, end - start);
  return first.replace(/(?:\n\n\[[^\n]*\])+$/, "");
}
function docFrom(sc, result) {
  return {
    name: String(sc.name), path: String(sc.path || ""), start: typeof sc.start === "number" ? sc.start : 0,
    text: chunkOf(sc, result), next: typeof sc.next_start === "number" ? sc.next_start : null,
    total: typeof sc.total_chars === "number" ? sc.total_chars : 0, digest: String(sc.digest || ""),
    files: sc.files.filter(isObject)
  };
}

function open(args) {
  setStatus("Loading " + args.name + (args.path ? " " + args.path : "") + "\u2026", true);
  callTool("skills", args).then(function (result) {
    setStatus("");
    var sc = isObject(result.structuredContent) ? result.structuredContent : null;
    if (result.isError || !sc || !Array.isArray(sc.files)) {
      flash(errorBox(resultText(result) || "The server sent no readable result."));
      return;
    }
    var d = state.doc;
    if (args.start && d && d.name === sc.name && d.path === sc.path && d.start + d.text.length === sc.start) {
      d.text += chunkOf(sc, result);
      d.next = typeof sc.next_start === "number" ? sc.next_start : null;
      showDoc(true);
    } else {
      state.doc = docFrom(sc, result);
      showDoc();
      focusTitle();
    }
  }, function (error) { setStatus(""); flash(errorBox(error.message)); });
}

function looksBinary(text) {
  var sample = text.slice(0, 4000);
  var odd = (sample.match(/[\uFFFD\u0000]/g) || []).length;
  return odd > 0 && odd * 50 > sample.length;
}

function contentNodes(d) {
  var nodes = [];
  if (d.start > 0) nodes.push(note("Showing from character " + count(d.start) + "."));
  var cut = d.text.length > MAX_CHARS;
  var shown = cut ? d.text.slice(0, MAX_CHARS) : d.text;
  var file = d.files.filter(function (f) { return f.path === d.path; })[0];
  if (looksBinary(shown)) nodes.push(note("This file looks binary (" + bytes(file && file.size) + "); it is not shown as text."));
  else if (/\.(md|markdown)$/i.test(d.path)) {
    var fm = d.start === 0 ? frontmatterOf(shown) : null;
    if (fm) { nodes.push(frontmatterTable(fm.pairs)); shown = fm.body; }
    nodes.push(h("div", { class: "md" }, renderMarkdown(shown)));
  } else nodes.push(h("pre", null, h("code", { text: shown })));
  var end = d.start + Math.min(d.text.length, MAX_CHARS);
  var rest = { action: "get", name: d.name, path: d.path, start: end };
  if (cut || (d.next !== null && d.text.length >= MAX_CHARS))
    nodes.push(note("Showing " + count(end - d.start) + " of " + count(d.total) + " characters; this view shows at most " + count(MAX_CHARS) + ". To read the rest, ask the agent for " + askAgent(rest) + "."));
  else if (d.next !== null) {
    rest.start = d.next;
    var left = count(d.total - d.next) + " more characters";
    nodes.push(canCallTools()
      ? h("button", { type: "button", id: "more", text: "Load more (" + left + ")", onclick: function () { open(rest); } })
      : note(left + ": ask the agent for " + askAgent(rest) + "."));
  }
  return nodes;
}

function filesTable(d) {
  var rows = d.files.slice(0, MAX_ITEMS).map(function (f) {
    var path = String(f.path);
    var current = path === d.path;
    var label = canCallTools()
      ? h("button", { type: "button", "aria-current": current ? "true" : null, text: path, onclick: function () { open({ action: "get", name: d.name, path: path }); } })
      : h("span", { "aria-current": current ? "true" : null, text: path });
    return h("tr", null, [
      h("td", null, label),
      h("td", { text: bytes(f.size) }),
      h("td", null, h("code", { title: String(f.digest || ""), text: shortDigest(f.digest) }))
    ]);
  });
  var nodes = [h("h2", { text: "Files (" + count(d.files.length) + ")" }), h("div", { class: "wrap" }, h("table", { class: "files" }, [
    h("thead", null, h("tr", null, [h("th", { scope: "col", text: "Path" }), h("th", { scope: "col", text: "Size" }), h("th", { scope: "col", text: "Digest" })])),
    h("tbody", null, rows)
  ]))];
  if (d.files.length > MAX_ITEMS) nodes.push(note(count(d.files.length - MAX_ITEMS) + " more files not shown; ask the agent to read one by path."));
  return nodes;
}

function showDoc(keepFocus) {
  var d = state.doc;
  var nodes = [];
  if (state.items) nodes.push(h("button", { type: "button", class: "back", text: "\u2190 All skills", onclick: function () { showList(d.name); } }));
  nodes.push(h("h1", { text: d.name }));
  nodes.push(h("p", { class: "row muted" }, [
    h("span", { text: d.path }),
    d.total ? h("span", { text: plural(d.total, "character", "characters") }) : null,
    d.digest ? h("code", { title: d.digest, text: shortDigest(d.digest) }) : null
  ]));
  var viewer = h("section", { id: "content", "aria-label": "Content of " + d.path }, contentNodes(d));
  show(nodes.concat(d.files.length ? filesTable(d) : [], [h("h2", { text: d.path }), viewer]));
  if (keepFocus) { var more = byId("more"); if (more) more.focus(); else viewer.setAttribute("tabindex", "-1"); }
}

function render(result) {
  var sc = isObject(result.structuredContent) ? result.structuredContent : null;
  if (result.isError) return show(errorBox(resultText(result) || "The tool reported an error."));
  if (sc && Array.isArray(sc.items)) { state.items = sc.items.filter(isObject); state.query = ""; return showList(); }
  if (sc && typeof sc.name === "string" && Array.isArray(sc.files)) { state.doc = docFrom(sc, result); return showDoc(); }
  show(plainResult(result));
}

startBridge({
  input: function (args) {
    setStatus(args.action === "get" && args.name ? "Loading " + args.name + "\u2026" : "Loading your skills\u2026", true);
  },
  partial: function () { setStatus("Receiving the tool call\u2026", true); },
  result: render,
  cancelled: function (reason) { setStatus(cancelledText(reason)); }
});
`;
