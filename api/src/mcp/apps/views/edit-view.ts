/**
 * The edit view's script and styles, as browser JavaScript: a `skill_edit` result's `changes`
 * shown per file as a unified diff. A line's kind is never told by colour alone: each carries a
 * visible +/− marker and a label for screen readers. It calls no tool.
 */
export const EDIT_CSS = `
.file{margin:12px 0}
.file h2{margin:0 0 4px;display:flex;flex-wrap:wrap;gap:8px;align-items:baseline}
.status-added{color:var(--add-fg)}.status-removed{color:var(--del-fg)}.status-changed{color:var(--info-fg)}
.diff{padding:4px 0}
.ln{display:block;padding:0 10px;min-height:1.5em}
.mk{display:inline-block;width:2ch;user-select:none}
.add{background:var(--add-bg);color:var(--add-fg)}
.del{background:var(--del-bg);color:var(--del-fg)}
.hunk{color:var(--info-fg)}
.meta{color:var(--fg2)}
`;

export const EDIT_JS = String.raw`
var STATUS = {
  added: { mark: "+", label: "added" },
  removed: { mark: "\u2212", label: "removed" },
  changed: { mark: "~", label: "changed" }
};
var LINE = {
  add: { mark: "+", label: "Added line: " },
  del: { mark: "\u2212", label: "Removed line: " },
  ctx: { mark: " ", label: "" },
  hunk: { mark: "", label: "Hunk: " },
  meta: { mark: "", label: "" }
};

function diffLine(kind, text) {
  var k = LINE[kind];
  return h("span", { class: "ln " + kind }, [
    k.label ? h("span", { class: "sr", text: k.label }) : null,
    k.mark ? h("span", { class: "mk", "aria-hidden": "true", text: k.mark }) : null,
    text
  ]);
}

/** The patch's lines as nodes, at most budget characters; returns the nodes and what was used. */
function diffNodes(patch, budget) {
  var lines = patch.replace(/\r\n?/g, "\n").split("\n");
  if (lines.length && lines[lines.length - 1] === "") lines.pop();
  var nodes = [];
  var used = 0;
  var inHunk = false;
  for (var i = 0; i < lines.length; i++) {
    var line = lines[i];
    if (used + line.length > budget) return { nodes: nodes, used: used, cut: lines.length - i };
    used += line.length + 1;
    var c = line.charAt(0);
    if (line.slice(0, 2) === "@@") { inHunk = true; nodes.push(diffLine("hunk", line)); }
    else if (!inHunk) nodes.push(diffLine("meta", line));
    else if (c === "+") nodes.push(diffLine("add", line.slice(1)));
    else if (c === "-") nodes.push(diffLine("del", line.slice(1)));
    else if (c === "\\") nodes.push(diffLine("meta", line));
    else nodes.push(diffLine("ctx", line.slice(1)));
  }
  return { nodes: nodes, used: used, cut: 0 };
}

function fileNode(name, change, budget) {
  var status = STATUS[change.status] || { mark: "?", label: String(change.status || "unknown") };
  var path = String(change.path);
  var section = h("section", { class: "file", "aria-label": path + ", " + status.label }, [
    h("h2", null, [
      h("span", { text: path }),
      h("span", { class: "badge status-" + status.label }, [h("span", { "aria-hidden": "true", text: status.mark + " " }), status.label])
    ])
  ]);
  var used = 0;
  if (typeof change.patch === "string" && change.patch) {
    var diff = diffNodes(change.patch, budget);
    used = diff.used;
    section.appendChild(h("pre", { class: "diff", "aria-label": "Changes to " + path }, diff.nodes));
    if (diff.cut) section.appendChild(note(plural(diff.cut, "more line", "more lines") + " of this diff are not shown: this view shows at most " + count(MAX_CHARS) + " characters of diffs. The console's skill page shows the whole file."));
  } else section.appendChild(h("p", { class: "muted", text: typeof change.note === "string" && change.note ? "No diff shown: " + change.note + "." : change.status === "removed" ? "The file was removed." : "No text diff for this file." }));
  if (change.truncated) section.appendChild(note("The server cut this diff short. Read the whole file with skills(action=\"get\", name=" + JSON.stringify(name) + ", path=" + JSON.stringify(path) + ")."));
  return { node: section, used: used };
}

function render(result) {
  if (result.isError) return show(errorBox(resultText(result) || "The edit failed."));
  var sc = isObject(result.structuredContent) ? result.structuredContent : null;
  if (!sc || !Array.isArray(sc.changes)) return show(plainResult(result));
  var changes = sc.changes.filter(isObject);
  var nodes = [h("h1", { text: "Edited " + String(sc.name || "") })];
  nodes.push(h("p", { class: "row muted" }, [
    sc.version !== undefined ? h("span", { text: "Version " + String(sc.version) }) : null,
    sc.revision !== undefined ? h("span", { text: "revision " + String(sc.revision) }) : null,
    sc.state ? h("span", { class: "badge", text: String(sc.state) }) : null
  ]));
  var tally = ["added", "changed", "removed"].map(function (s) {
    var n = changes.filter(function (c) { return c.status === s; }).length;
    return n ? count(n) + " " + s : "";
  }).filter(Boolean);
  nodes.push(h("p", { text: changes.length ? plural(changes.length, "file", "files") + ": " + tally.join(", ") + "." : "No file changed in this edit." }));
  var budget = MAX_CHARS;
  changes.slice(0, MAX_ITEMS).forEach(function (change) {
    var file = fileNode(String(sc.name || ""), change, budget);
    budget = Math.max(0, budget - file.used);
    nodes.push(file.node);
  });
  if (changes.length > MAX_ITEMS) nodes.push(note(plural(changes.length - MAX_ITEMS, "more file", "more files") + " not shown: this view shows " + count(MAX_ITEMS) + ". The tool's text result lists every file."));
  show(nodes);
}

startBridge({
  input: function (args) { setStatus("Applying the edit" + (args.name ? " to " + args.name : "") + "\u2026", true); },
  partial: function () { setStatus("Receiving the edit\u2026", true); },
  result: render,
  cancelled: function (reason) { setStatus(cancelledText(reason)); }
});
`;
