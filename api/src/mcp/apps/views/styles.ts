/**
 * The CSS every view shares. Host style variables (`hostContext.styles.variables`) win over these
 * defaults; `data-theme` (set from `hostContext.theme`) wins over `prefers-color-scheme`.
 */
export const BASE_CSS = `
:root{color-scheme:light dark;
--bg:var(--color-background-primary,#fff);--bg2:var(--color-background-secondary,#f4f5f7);
--fg:var(--color-text-primary,#1b1d21);--fg2:var(--color-text-secondary,#5a606b);
--line:var(--color-border-primary,#d5d8de);--ring:var(--color-ring-primary,#2563eb);
--add-bg:var(--color-background-success,#e6f4ea);--add-fg:var(--color-text-success,#14532d);
--del-bg:var(--color-background-danger,#fdecec);--del-fg:var(--color-text-danger,#7f1d1d);
--info-fg:var(--color-text-info,#1e3a8a);
--sans:var(--font-sans,system-ui,-apple-system,"Segoe UI",Roboto,sans-serif);
--mono:var(--font-mono,ui-monospace,SFMono-Regular,Menlo,Consolas,monospace);
--radius:var(--border-radius-md,6px)}
:root[data-theme=dark]{color-scheme:dark;
--bg:var(--color-background-primary,#17191d);--bg2:var(--color-background-secondary,#23262c);
--fg:var(--color-text-primary,#e8eaed);--fg2:var(--color-text-secondary,#a3a9b4);
--line:var(--color-border-primary,#3a3f47);--ring:var(--color-ring-primary,#7aa2ff);
--add-bg:var(--color-background-success,#12301c);--add-fg:var(--color-text-success,#a7f3c0);
--del-bg:var(--color-background-danger,#3a1616);--del-fg:var(--color-text-danger,#fecaca);
--info-fg:var(--color-text-info,#bfdbfe)}
@media (prefers-color-scheme:dark){:root:not([data-theme=light]){color-scheme:dark;
--bg:var(--color-background-primary,#17191d);--bg2:var(--color-background-secondary,#23262c);
--fg:var(--color-text-primary,#e8eaed);--fg2:var(--color-text-secondary,#a3a9b4);
--line:var(--color-border-primary,#3a3f47);--ring:var(--color-ring-primary,#7aa2ff);
--add-bg:var(--color-background-success,#12301c);--add-fg:var(--color-text-success,#a7f3c0);
--del-bg:var(--color-background-danger,#3a1616);--del-fg:var(--color-text-danger,#fecaca);
--info-fg:var(--color-text-info,#bfdbfe)}}
:root[data-theme=light]{color-scheme:light}
*{box-sizing:border-box}
html{background:var(--bg);color:var(--fg);font:14px/1.5 var(--sans)}
body{margin:0}
main{padding:12px 16px;max-width:100%;overflow-wrap:anywhere}
h1{font-size:1.25rem;margin:0 0 8px}h2{font-size:1.1rem}h3{font-size:1rem}h4,h5,h6{font-size:.95rem}
h2,h3,h4,h5,h6{margin:16px 0 6px}
p{margin:6px 0}
code,pre{font-family:var(--mono);font-size:.9em}
code{background:var(--bg2);padding:0 3px;border-radius:3px}
pre{background:var(--bg2);border:1px solid var(--line);border-radius:var(--radius);padding:8px 10px;overflow-x:auto;white-space:pre}
pre code{background:none;padding:0}
table{border-collapse:collapse;margin:6px 0;max-width:100%}
th,td{border:1px solid var(--line);padding:3px 8px;text-align:left;vertical-align:top}
th{background:var(--bg2);font-weight:600}
.wrap{overflow-x:auto;max-width:100%}
button,input{font:inherit;color:inherit}
button{background:var(--bg2);border:1px solid var(--line);border-radius:var(--radius);padding:4px 10px;cursor:pointer;transition:background-color .15s}
button:hover{background:var(--bg)}
input[type=search]{width:100%;padding:6px 8px;border:1px solid var(--line);border-radius:var(--radius);background:var(--bg)}
:focus-visible{outline:2px solid var(--ring);outline-offset:2px}
.muted{color:var(--fg2)}
.note{border-left:3px solid var(--ring);padding:4px 8px;background:var(--bg2);color:var(--info-fg)}
.error{border-left:3px solid var(--del-fg);padding:4px 8px;background:var(--del-bg);color:var(--del-fg);white-space:pre-wrap}
.badge{display:inline-block;border:1px solid var(--line);border-radius:999px;padding:0 6px;font-size:.8em;color:var(--fg2)}
.row{display:flex;flex-wrap:wrap;gap:8px;align-items:baseline}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
#status:empty{display:none}
.pending{animation:pulse 1.2s ease-in-out infinite}
@keyframes pulse{50%{opacity:.5}}
@media (prefers-reduced-motion:reduce){*{animation:none!important;transition:none!important;scroll-behavior:auto!important}}
@media (max-width:480px){main{padding:8px}h1{font-size:1.1rem}.row{gap:4px}}
`;
