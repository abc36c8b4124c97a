/**
 * The studio's page: plain HTML and CSS, served by `nodestep serve` at `/`. Its script is
 * `/studio.js` ({@link studioScript}); there is no build step and nothing is loaded from
 * elsewhere.
 *
 * @module
 */

/** Escape text for HTML. */
function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch] ?? ch,
  );
}

/** The studio page for a graph named `graphName`. */
export function studioHtml(graphName: string): string {
  const name = escapeHtml(graphName);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${name} · nodestep studio</title>
<style>${STUDIO_CSS}</style>
</head>
<body>
<header>
  <h1>nodestep studio <span class="graph-name">${name}</span></h1>
  <form id="key-form" hidden>
    <label>API key <input id="api-key" type="password" autocomplete="off"></label>
    <button type="submit">Use key</button>
  </form>
  <div id="status" role="status"></div>
</header>
<main>
  <section class="col" id="left">
    <h2>Graph</h2>
    <div id="graph"></div>
    <h2>Threads <button id="new-thread" type="button">New thread</button> <button id="refresh" type="button" title="Reload the list">↻</button></h2>
    <ul id="threads" class="list"></ul>
  </section>
  <section class="col" id="middle">
    <h2>Run <span id="thread-label" class="muted">new thread</span></h2>
    <div class="row">
      <label>Branch <select id="branch"><option value="main">main</option></select></label>
    </div>
    <form id="run-form">
      <textarea id="message" rows="3" placeholder="Message to the agent"></textarea>
      <button id="run" type="submit">Run</button>
    </form>
    <div id="interrupts" hidden></div>
    <h3>Live events</h3>
    <ol id="events" class="list events"></ol>
    <h3>History <span class="muted">(click an event to see the state after it)</span></h3>
    <ol id="history" class="list events"></ol>
  </section>
  <section class="col" id="right">
    <h2>State <span id="state-label" class="muted"></span></h2>
    <div class="row"><button id="fork" type="button" disabled>Fork from this event</button></div>
    <pre id="state"></pre>
  </section>
</main>
<script src="/studio.js"></script>
</body>
</html>
`;
}

const STUDIO_CSS = `
*{box-sizing:border-box}
body{margin:0;font:14px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2330;background:#f4f6fa}
header{display:flex;align-items:center;gap:16px;padding:10px 16px;background:#1d2330;color:#fff}
header h1{font-size:16px;margin:0;font-weight:600}
.graph-name{font-weight:400;color:#9fc3ff;margin-left:6px}
#status{margin-left:auto;font-size:13px;color:#cfd7e6}
#status.error{color:#ffb4b4}
main{display:grid;grid-template-columns:minmax(260px,1fr) minmax(320px,1.3fr) minmax(280px,1.2fr);gap:12px;padding:12px}
.col{background:#fff;border:1px solid #dde2ec;border-radius:8px;padding:10px 12px;min-width:0}
h2{font-size:14px;margin:4px 0 8px;display:flex;align-items:center;gap:6px}
h3{font-size:13px;margin:12px 0 6px;color:#445}
.muted{color:#778;font-weight:400;font-size:12px}
.row{display:flex;gap:8px;align-items:center;margin-bottom:8px}
button{font:inherit;font-size:13px;padding:4px 10px;border:1px solid #9aa7bd;border-radius:5px;background:#f7f9fc;cursor:pointer}
button:hover:not(:disabled){background:#e8eef8}
button:disabled{opacity:.5;cursor:default}
button.primary,#run{background:#2f6fdf;color:#fff;border-color:#2f6fdf}
textarea{width:100%;font:inherit;padding:6px;border:1px solid #c5cddb;border-radius:5px;resize:vertical}
#run-form{display:flex;flex-direction:column;gap:6px;align-items:flex-start}
.list{list-style:none;margin:0;padding:0;max-height:260px;overflow:auto;border:1px solid #eef1f6;border-radius:5px}
.list li{padding:4px 8px;border-bottom:1px solid #eef1f6;cursor:pointer;font-size:12.5px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.list li:hover{background:#f0f5ff}
.list li.selected{background:#dce8ff}
.events li{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:12px;cursor:default}
#history li{cursor:pointer}
.tag{display:inline-block;min-width:64px;font-weight:600;color:#2f6fdf}
.tag.interrupt,.tag.task_interrupted{color:#b35c00}
.tag.error,.tag.run_failed{color:#c62828}
.tag.end,.tag.run_finished{color:#1b7f3b}
pre{margin:0;padding:8px;background:#f7f9fc;border:1px solid #eef1f6;border-radius:5px;overflow:auto;max-height:70vh;font-size:12px}
#graph svg{max-width:100%;height:auto;display:block;margin:0 auto}
#graph .node rect{fill:#eef3ff;stroke:#5d7fbf;stroke-width:1.2}
#graph .node.terminal rect{fill:#1d2330;stroke:#1d2330}
#graph .node.terminal text{fill:#fff}
#graph .node.active rect{fill:#ffe9b8;stroke:#d08a00;stroke-width:2}
#graph .node.next rect{fill:#fff3d6;stroke:#d08a00;stroke-dasharray:4 2}
#graph text{font-size:12px;fill:#1d2330;text-anchor:middle;dominant-baseline:middle}
#graph .edge{fill:none;stroke:#8796b0;stroke-width:1.3}
#graph .edge.when,#graph .edge.otherwise,#graph .edge.goto{stroke-dasharray:5 3}
#graph .edge-label{font-size:10px;fill:#6a7891}
#interrupts{border:1px solid #f0c27a;background:#fff8eb;border-radius:6px;padding:8px;margin:10px 0}
#interrupts .interrupt{margin-bottom:8px}
#interrupts .question{font-weight:600;margin-bottom:4px;white-space:pre-wrap}
#interrupts .answer-row{display:flex;gap:6px;align-items:center}
#interrupts input{flex:1;font:inherit;padding:3px 6px;border:1px solid #c5cddb;border-radius:4px}
`;
