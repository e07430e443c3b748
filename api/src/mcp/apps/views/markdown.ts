/**
 * A small Markdown renderer that builds DOM nodes, as browser JavaScript: headings, paragraphs,
 * nested lists, fenced code, block quotes, tables, rules, and inline code, emphasis and links
 * (shown as their text followed by the URL, never as a clickable link or a loaded image).
 *
 * Why no Markdown library: marked (and its kin) emit HTML strings, which an untrusted skill could
 * fill with markup, so they would need a sanitizer such as DOMPurify to go with them; the two
 * together exceed the 64 KiB a view may weigh. Building nodes with `textContent` needs no
 * sanitizer at all: no text from a skill is ever parsed as HTML.
 *
 * Defines `frontmatterOf(text)` and `renderMarkdown(text)` (a DocumentFragment).
 */
export const MARKDOWN_JS = String.raw`
// A paragraph longer than this is shown as plain text: the inline patterns are lazy, and a
// pathological line must not cost quadratic time.
var MAX_INLINE = 20000;
var INLINE = /(\x60+)([\s\S]+?)\1(?!\x60)|!\[([^\]]*)\]\(([^)\s]*)(?:\s+"[^"]*")?\)|\[([^\]]+)\]\(([^)\s]*)(?:\s+"[^"]*")?\)|<((?:https?|mailto):[^>\s]+)>|\*\*(?=\S)([\s\S]+?)\*\*|__(?=\S)([\s\S]+?)__|\*(?=[^\s*])([\s\S]+?)\*|(?:^|(?<=[^\w]))_(?=[^\s_])([\s\S]+?)_(?![\w])|~~(?=\S)([\s\S]+?)~~/g;

function inline(text, depth) {
  depth = depth || 0;
  if (depth > 6 || text.length > MAX_INLINE) return [text];
  var out = [];
  var re = new RegExp(INLINE.source, "g");
  var last = 0;
  var m;
  while ((m = re.exec(text))) {
    if (m.index > last) out.push(text.slice(last, m.index));
    if (m[1]) out.push(h("code", { text: m[2].replace(/^ (.*) $/, "$1") }));
    else if (m[3] !== undefined && m[4] !== undefined && m[0].charAt(0) === "!")
      out.push(h("span", { class: "muted", text: "[image: " + (m[3] || "untitled") + "] (" + m[4] + ")" }));
    else if (m[5] !== undefined) out.push(link(m[5], m[6], depth));
    else if (m[7]) out.push(h("span", { class: "url", text: m[7] }));
    else if (m[8] || m[9]) out.push(h("strong", null, inline(m[8] || m[9], depth + 1)));
    else if (m[10] || m[11]) out.push(h("em", null, inline(m[10] || m[11], depth + 1)));
    else if (m[12]) out.push(h("del", null, inline(m[12], depth + 1)));
    last = re.lastIndex;
    if (m[0].length === 0) re.lastIndex++;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}
function link(label, url, depth) {
  var shown = h("span", { class: "link" }, inline(label, depth + 1));
  if (!url || url === label) return shown;
  return h("span", null, [shown, h("span", { class: "muted url", text: " (" + url + ")" })]);
}

/** YAML frontmatter as [key, value] pairs and the body after it, or null when there is none. */
function frontmatterOf(text) {
  var m = /^---[ \t]*\n([\s\S]*?)\n---[ \t]*(?:\n|$)/.exec(text);
  if (!m) return null;
  var pairs = [];
  m[1].split("\n").forEach(function (line) {
    var key = /^([A-Za-z0-9_.-]+):[ \t]*(.*)$/.exec(line);
    if (key) pairs.push([key[1], unquote(key[2])]);
    else if (pairs.length && line.trim() && !/^\s*#/.test(line)) {
      var lastPair = pairs[pairs.length - 1];
      lastPair[1] = (lastPair[1] ? lastPair[1] + "\n" : "") + line.replace(/^\s+/, "");
    }
  });
  return { pairs: pairs, body: text.slice(m[0].length) };
}
function unquote(v) {
  var s = v.trim();
  if (s.length > 1 && (s[0] === '"' || s[0] === "'") && s[s.length - 1] === s[0]) return s.slice(1, -1);
  return s;
}
function frontmatterTable(pairs) {
  return h("div", { class: "wrap" }, h("table", { class: "frontmatter" }, [
    h("caption", { class: "muted", text: "Frontmatter" }),
    h("tbody", null, pairs.map(function (p) {
      return h("tr", null, [h("th", { scope: "row", text: p[0] }), h("td", { text: p[1] })]);
    }))
  ]));
}

var FENCE = /^(\s*)(\x60{3,}|~{3,})\s*([^\s\x60]*)/;
var ITEM = /^(\s*)([-*+]|\d{1,9}[.)])[ \t]+(.*)$/;
var HEADING = /^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;
var RULE = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
var TABLE_SEP = /^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$/;

function cells(line) {
  var s = line.trim().replace(/^\|/, "").replace(/\|$/, "");
  return s.split(/(?<!\\)\|/).map(function (c) { return c.trim().replace(/\\\|/g, "|"); });
}

function renderMarkdown(text) {
  var root = document.createDocumentFragment();
  var lines = text.replace(/\r\n?/g, "\n").split("\n");
  var para = [];
  var lists = [];
  function flush() {
    if (!para.length) return;
    var p = h("p", null, inline(para.join(" ")));
    if (lists.length) lists[lists.length - 1].li.appendChild(p);
    else root.appendChild(p);
    para = [];
  }
  function closeLists() { flush(); lists = []; }
  for (var i = 0; i < lines.length; i++) {
    var line = lines[i];
    var fence = FENCE.exec(line);
    if (fence) {
      flush();
      var indent = fence[1].length;
      var body = [];
      var closer = new RegExp("^\\s*" + fence[2][0] + "{" + fence[2].length + ",}\\s*$");
      for (i++; i < lines.length && !closer.test(lines[i]); i++) body.push(indent ? lines[i].replace(new RegExp("^ {0," + indent + "}"), "") : lines[i]);
      var pre = h("pre", fence[3] ? { "data-lang": fence[3], "aria-label": fence[3] + " code" } : null, h("code", { text: body.join("\n") }));
      if (lists.length && indent > 0) lists[lists.length - 1].li.appendChild(pre);
      else { closeLists(); root.appendChild(pre); }
      continue;
    }
    if (!line.trim()) { flush(); continue; }
    var item = ITEM.exec(line);
    if (item && !RULE.test(line)) {
      flush();
      var depth = item[1].replace(/\t/g, "    ").length;
      var ordered = /\d/.test(item[2]);
      while (lists.length && depth < lists[lists.length - 1].depth) lists.pop();
      var top = lists[lists.length - 1];
      if (!top || depth > top.depth) {
        var list = h(ordered ? "ol" : "ul", ordered && parseInt(item[2], 10) !== 1 ? { start: parseInt(item[2], 10) } : null);
        if (top) top.li.appendChild(list);
        else root.appendChild(list);
        top = { depth: depth, list: list, li: null };
        lists.push(top);
      }
      top.li = h("li", null, inline(item[3]));
      top.list.appendChild(top.li);
      continue;
    }
    if (lists.length && /^\s/.test(line)) { para.push(line.trim()); continue; }
    closeLists();
    var heading = HEADING.exec(line);
    if (heading) {
      // The view's own title is the h1: a document's headings sit one level below it.
      root.appendChild(h("h" + Math.min(6, heading[1].length + 1), null, inline(heading[2])));
      continue;
    }
    if (RULE.test(line)) { root.appendChild(h("hr")); continue; }
    if (/^ {0,3}>/.test(line)) {
      var quoted = [];
      for (; i < lines.length && /^ {0,3}>/.test(lines[i]); i++) quoted.push(lines[i].replace(/^ {0,3}> ?/, ""));
      i--;
      root.appendChild(h("blockquote", null, renderMarkdown(quoted.join("\n"))));
      continue;
    }
    if (line.indexOf("|") >= 0 && i + 1 < lines.length && TABLE_SEP.test(lines[i + 1]) && lines[i + 1].indexOf("-") >= 0) {
      var head = cells(line);
      var rows = [];
      for (i += 2; i < lines.length && lines[i].indexOf("|") >= 0 && lines[i].trim(); i++) rows.push(cells(lines[i]));
      i--;
      root.appendChild(h("div", { class: "wrap" }, h("table", null, [
        h("thead", null, h("tr", null, head.map(function (c) { return h("th", { scope: "col" }, inline(c)); }))),
        h("tbody", null, rows.map(function (r) { return h("tr", null, r.map(function (c) { return h("td", null, inline(c)); })); }))
      ])));
      continue;
    }
    para.push(line.trim());
  }
  flush();
  return root;
}
`;
