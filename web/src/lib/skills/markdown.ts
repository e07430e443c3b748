import DOMPurify from "dompurify";
import { marked } from "marked";

let hooksAdded = false;

// Links open in a new tab (leaving the page would drop unsaved edits); remote images are not
// fetched, so previewing an imported skill cannot call a tracker or leak the reader's address.
function addHooks(): void {
  if (hooksAdded) return;
  hooksAdded = true;
  DOMPurify.addHook("afterSanitizeAttributes", (node) => {
    if (node.tagName === "A" && node.hasAttribute("href")) {
      node.setAttribute("target", "_blank");
      node.setAttribute("rel", "noopener noreferrer");
    }
    if (node.tagName === "IMG") {
      const src = node.getAttribute("src") ?? "";
      node.removeAttribute("srcset");
      if (!src.startsWith("data:image/")) {
        node.removeAttribute("src");
        node.setAttribute("title", `Not loaded in the preview: ${src}`);
      }
    }
  });
}

// Skill text comes from teammates and imports: the preview shows it only after DOMPurify has
// removed scripts, event handlers and javascript: URLs. Runs in the browser only (DOMPurify needs a DOM).
export function renderMarkdown(markdown: string): string {
  addHooks();
  const html = marked.parse(markdown, { async: false, gfm: true });
  return DOMPurify.sanitize(html, {
    USE_PROFILES: { html: true },
    FORBID_TAGS: ["style", "form", "input", "button", "textarea", "select"],
    ADD_ATTR: ["target"],
  });
}
