/**
 * The studio's script, served as `/studio.js`: plain browser JavaScript (ES5 style, no
 * libraries, no build step), kept here as a string so that the package ships it in `dist`.
 * It must contain no backtick and no dollar-brace sequence.
 *
 * @module
 */

/** The source of `/studio.js`. */
export const studioScript: string = String.raw`// nodestep studio: plain browser JavaScript, no build step, no libraries.
(function () {
  "use strict";

  var state = {
    threadId: null, // selected thread, or null for a new one
    branchId: "main",
    eventId: null, // selected history event, or null for the latest state
    running: false,
    graph: null,
  };
  var $ = function (id) {
    return document.getElementById(id);
  };

  // ------------------------------------------------------------------ DOM helpers
  function h(tag, attrs) {
    var el = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (k) {
        var v = attrs[k];
        if (v === undefined || v === null || v === false) return;
        if (k === "text") el.textContent = v;
        else if (k === "className") el.className = v;
        else if (k.slice(0, 2) === "on") el.addEventListener(k.slice(2), v);
        else el.setAttribute(k, v === true ? "" : String(v));
      });
    }
    for (var i = 2; i < arguments.length; i++) {
      var c = arguments[i];
      if (c === null || c === undefined) continue;
      el.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
    }
    return el;
  }
  function svg(tag, attrs) {
    var el = document.createElementNS("http://www.w3.org/2000/svg", tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") el.textContent = attrs[k];
      else el.setAttribute(k, String(attrs[k]));
    });
    return el;
  }
  function clear(el) {
    while (el.firstChild) el.removeChild(el.firstChild);
  }
  function short(value, max) {
    var text = typeof value === "string" ? value : JSON.stringify(value);
    if (text === undefined) text = String(value);
    max = max || 120;
    return text.length > max ? text.slice(0, max - 1) + "…" : text;
  }
  function setStatus(text, isError) {
    var el = $("status");
    el.textContent = text;
    el.className = isError ? "error" : "";
  }

  // ------------------------------------------------------------------ API
  function apiKey() {
    try {
      return sessionStorage.getItem("nodestep.apiKey") || "";
    } catch (e) {
      return "";
    }
  }
  function ApiError(status, type, message) {
    this.status = status;
    this.type = type;
    this.message = message;
  }
  function request(method, path, body) {
    var headers = {};
    var key = apiKey();
    if (key) headers.Authorization = "Bearer " + key;
    var init = { method: method, headers: headers };
    if (body !== undefined) {
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    return fetch(path, init).then(function (res) {
      if (res.ok) return res;
      return res
        .json()
        .catch(function () {
          return { error: { type: "HttpError", message: res.status + " " + res.statusText } };
        })
        .then(function (b) {
          var err = (b && b.error) || { type: "HttpError", message: String(res.status) };
          if (res.status === 401) $("key-form").hidden = false;
          throw new ApiError(res.status, err.type, err.message);
        });
    });
  }
  function api(method, path, body) {
    return request(method, path, body).then(function (res) {
      return res.json();
    });
  }
  function threadPath(threadId, rest) {
    return "/api/threads/" + encodeURIComponent(threadId) + rest;
  }
  function fail(e) {
    setStatus((e && e.type ? e.type + ": " : "") + ((e && e.message) || String(e)), true);
  }

  // ------------------------------------------------------------------ graph drawing
  var NODE_W = 120;
  var NODE_H = 32;
  var GAP_Y = 40;
  var GAP_X = 30;
  var SIDE = 70; // room on each side for edges that skip a row or loop back

  function layout(view) {
    var names = ["__start__"].concat(view.nodes, ["__end__"]);
    var out = {};
    names.forEach(function (n) {
      out[n] = [];
    });
    view.edges.forEach(function (e) {
      if (out[e.from]) out[e.from].push(e.to);
    });
    // rank: the longest path from START over the edges that do not loop back (found by a
    // depth-first walk); END below everything else
    var back = {};
    var seen = {};
    var onPath = {};
    function walk(n) {
      seen[n] = true;
      onPath[n] = true;
      (out[n] || []).forEach(function (m) {
        if (onPath[m]) back[n + ">" + m] = true;
        else if (!seen[m]) walk(m);
      });
      onPath[n] = false;
    }
    walk("__start__");
    var rank = { __start__: 0 };
    for (var round = 0; round < names.length; round++) {
      names.forEach(function (n) {
        if (rank[n] === undefined) return;
        (out[n] || []).forEach(function (m) {
          if (m === "__end__" || back[n + ">" + m]) return;
          if (rank[m] === undefined || rank[m] < rank[n] + 1) rank[m] = rank[n] + 1;
        });
      });
    }
    var maxRank = 0;
    view.nodes.forEach(function (n) {
      if (rank[n] === undefined) rank[n] = 1;
      maxRank = Math.max(maxRank, rank[n]);
    });
    rank.__end__ = maxRank + 1;
    var rows = [];
    names.forEach(function (n) {
      (rows[rank[n]] = rows[rank[n]] || []).push(n);
    });
    var widest = 0;
    rows.forEach(function (r) {
      widest = Math.max(widest, r ? r.length : 0);
    });
    var width = widest * NODE_W + (widest - 1) * GAP_X + 2 * SIDE;
    var pos = {};
    rows.forEach(function (r, i) {
      if (!r) return;
      var rowW = r.length * NODE_W + (r.length - 1) * GAP_X;
      var x0 = (width - rowW) / 2;
      r.forEach(function (n, j) {
        pos[n] = { x: x0 + j * (NODE_W + GAP_X), y: 10 + i * (NODE_H + GAP_Y), rank: i };
      });
    });
    return { pos: pos, width: width, height: 20 + rows.length * (NODE_H + GAP_Y) - GAP_Y };
  }

  function drawGraph(view) {
    var box = $("graph");
    clear(box);
    var l = layout(view);
    var root = svg("svg", {
      viewBox: "0 0 " + l.width + " " + l.height,
      width: l.width,
      height: l.height,
      role: "img",
      "aria-label": "graph " + view.name,
    });
    var defs = svg("defs");
    var marker = svg("marker", {
      id: "arrow",
      viewBox: "0 0 10 10",
      refX: 9,
      refY: 5,
      markerWidth: 7,
      markerHeight: 7,
      orient: "auto-start-reverse",
    });
    marker.appendChild(svg("path", { d: "M0,0 L10,5 L0,10 z", fill: "#8796b0" }));
    defs.appendChild(marker);
    root.appendChild(defs);
    var loop = 0;
    view.edges.forEach(function (e) {
      var a = l.pos[e.from];
      var b = l.pos[e.to];
      if (!a || !b) return;
      var d;
      var lx;
      var ly;
      if (b.rank > a.rank + 1) {
        // skips a row: around the left side
        var lx1 = a.x;
        var ly1 = a.y + NODE_H / 2;
        var lx2 = b.x;
        var ly2 = b.y + NODE_H / 2;
        var left = Math.min(lx1, lx2) - 28;
        d = "M" + lx1 + "," + ly1 + " C" + left + "," + ly1 + " " + left + "," + ly2 + " " + lx2 + "," + ly2;
        lx = left - 4;
        ly = (ly1 + ly2) / 2;
      } else if (b.rank > a.rank) {
        var x1 = a.x + NODE_W / 2;
        var y1 = a.y + NODE_H;
        var x2 = b.x + NODE_W / 2;
        var y2 = b.y;
        var my = (y1 + y2) / 2;
        d = "M" + x1 + "," + y1 + " C" + x1 + "," + my + " " + x2 + "," + my + " " + x2 + "," + y2;
        lx = (x1 + x2) / 2 + 4;
        ly = my;
      } else {
        // a loop back up (or sideways): around the right side
        loop += 1;
        var sx = a.x + NODE_W;
        var sy = a.y + NODE_H / 2;
        var tx = b.x + NODE_W;
        var ty = b.y + NODE_H / 2;
        var bx = Math.max(sx, tx) + 24 + loop * 12;
        d = "M" + sx + "," + sy + " C" + bx + "," + sy + " " + bx + "," + ty + " " + tx + "," + ty;
        lx = bx - 6;
        ly = (sy + ty) / 2;
      }
      root.appendChild(
        svg("path", {
          d: d,
          class: "edge " + e.kind,
          "marker-end": "url(#arrow)",
          "data-from": e.from,
          "data-to": e.to,
        }),
      );
      if (e.kind !== "edge") {
        root.appendChild(
          svg("text", {
            x: lx,
            y: ly,
            class: "edge-label",
            "text-anchor": b.rank > a.rank + 1 ? "end" : "start",
            text: e.kind,
          }),
        );
      }
    });
    Object.keys(l.pos).forEach(function (n) {
      var p = l.pos[n];
      var terminal = n === "__start__" || n === "__end__";
      var g = svg("g", { class: "node" + (terminal ? " terminal" : ""), "data-node": n });
      g.appendChild(
        svg("rect", { x: p.x, y: p.y, width: NODE_W, height: NODE_H, rx: terminal ? 16 : 6 }),
      );
      g.appendChild(
        svg("text", {
          x: p.x + NODE_W / 2,
          y: p.y + NODE_H / 2,
          text: n === "__start__" ? "START" : n === "__end__" ? "END" : n,
        }),
      );
      root.appendChild(g);
    });
    box.appendChild(root);
  }

  function markNodes(className, names) {
    var nodes = document.querySelectorAll("#graph .node");
    for (var i = 0; i < nodes.length; i++) {
      var n = nodes[i].getAttribute("data-node");
      nodes[i].classList.toggle(className, names.indexOf(n) >= 0);
    }
  }

  // ------------------------------------------------------------------ threads
  function loadThreads() {
    return api("GET", "/api/threads").then(function (body) {
      var list = $("threads");
      clear(list);
      body.threads.forEach(function (t) {
        list.appendChild(
          h(
            "li",
            {
              "data-thread-id": t.threadId,
              className: t.threadId === state.threadId ? "selected" : "",
              title: t.threadId,
              onclick: function () {
                selectThread(t.threadId, "main").catch(fail);
              },
            },
            t.threadId + "  ",
            h("span", { className: "muted", text: new Date(t.updatedAt).toLocaleString() }),
          ),
        );
      });
      if (!body.threads.length) list.appendChild(h("li", { className: "muted", text: "no threads yet" }));
      return body.threads;
    });
  }

  function selectThread(threadId, branchId) {
    state.threadId = threadId;
    state.branchId = branchId || "main";
    state.eventId = null;
    $("thread-label").textContent = threadId ? "thread " + threadId : "new thread";
    var items = document.querySelectorAll("#threads li");
    for (var i = 0; i < items.length; i++) {
      items[i].classList.toggle("selected", items[i].getAttribute("data-thread-id") === threadId);
    }
    if (!threadId) {
      fillBranches(["main"]);
      clear($("history"));
      clear($("events"));
      showInterrupts([]);
      $("state").textContent = "";
      $("state-label").textContent = "";
      $("fork").disabled = true;
      markNodes("next", []);
      return Promise.resolve();
    }
    return loadThreads()
      .then(function (threads) {
        var t = threads.filter(function (x) {
          return x.threadId === threadId;
        })[0];
        fillBranches(t ? t.branches : [state.branchId]);
        return refreshThread();
      });
  }

  function fillBranches(branches) {
    var sel = $("branch");
    clear(sel);
    if (branches.indexOf(state.branchId) < 0) branches = branches.concat([state.branchId]);
    branches.forEach(function (b) {
      sel.appendChild(h("option", { value: b, selected: b === state.branchId, text: b }));
    });
  }

  function refreshThread() {
    if (!state.threadId) return Promise.resolve();
    return Promise.all([loadHistory(), loadState(null)]);
  }

  function loadHistory() {
    var path = threadPath(state.threadId, "/history?branchId=" + encodeURIComponent(state.branchId));
    return api("GET", path).then(function (body) {
      var list = $("history");
      clear(list);
      body.events.forEach(function (e) {
        list.appendChild(
          h(
            "li",
            {
              "data-event-id": e.id,
              "data-type": e.type,
              "data-node": e.node || "",
              title: e.id,
              onclick: function () {
                selectEvent(e.id).catch(fail);
              },
            },
            h("span", { className: "tag " + e.type, text: e.type }),
            " " + (e.node ? e.node + " " : "") + (e.step !== null ? "step " + e.step + " " : ""),
            h("span", { className: "muted", text: e.id }),
          ),
        );
      });
    });
  }

  function selectEvent(eventId) {
    state.eventId = eventId;
    var items = document.querySelectorAll("#history li");
    for (var i = 0; i < items.length; i++) {
      items[i].classList.toggle("selected", items[i].getAttribute("data-event-id") === eventId);
    }
    return loadState(eventId);
  }

  function loadState(eventId) {
    var q = "?branchId=" + encodeURIComponent(state.branchId);
    if (eventId) q += "&eventId=" + encodeURIComponent(eventId);
    return api("GET", threadPath(state.threadId, "/state" + q)).then(function (snap) {
      $("state").textContent = JSON.stringify(snap.state, null, 2);
      $("state-label").textContent = eventId
        ? "after " + eventId
        : "now (" + (snap.status || "empty") + ", next: " + (snap.next.join(", ") || "none") + ")";
      $("fork").disabled = !eventId;
      markNodes("next", snap.next);
      if (!eventId) showInterrupts(snap.interrupts);
      return snap;
    });
  }

  // ------------------------------------------------------------------ runs
  function logEvent(kind, text) {
    var list = $("events");
    var li = h("li", { "data-kind": kind }, h("span", { className: "tag " + kind, text: kind }), " " + text);
    list.appendChild(li);
    list.scrollTop = list.scrollHeight;
  }

  function describeStreamEvent(e) {
    if (e.mode === "updates" && e.node === null && e.data && e.data.__interrupt__) {
      return "paused: " + e.data.__interrupt__.map(function (i) {
        return i.key;
      }).join(", ");
    }
    var data = e.data;
    if (data && Array.isArray(data.messages)) {
      var last = data.messages[data.messages.length - 1];
      if (last && typeof last.content === "string") {
        return (e.node || "-") + " step " + e.step + ": " + last.type + ": " + short(last.content, 100);
      }
    }
    return (e.node || "-") + " step " + e.step + ": " + short(data, 100);
  }

  function readStream(res, onEvent) {
    var reader = res.body.getReader();
    var decoder = new TextDecoder();
    var buffer = "";
    function pump() {
      return reader.read().then(function (chunk) {
        if (chunk.done) return;
        buffer += decoder.decode(chunk.value, { stream: true }).replace(/\r\n/g, "\n");
        var at;
        while ((at = buffer.indexOf("\n\n")) >= 0) {
          var block = buffer.slice(0, at);
          buffer = buffer.slice(at + 2);
          var event = "message";
          var data = [];
          block.split("\n").forEach(function (line) {
            if (line.indexOf("event:") === 0) event = line.slice(6).trim();
            else if (line.indexOf("data:") === 0) data.push(line.slice(5).replace(/^ /, ""));
          });
          if (data.length) onEvent(event, JSON.parse(data.join("\n")));
        }
        return pump();
      });
    }
    return pump();
  }

  function startRun(body) {
    if (state.running) return Promise.resolve();
    state.running = true;
    $("run").disabled = true;
    clear($("events"));
    showInterrupts([]);
    setStatus("running…");
    var ensureThread = state.threadId
      ? Promise.resolve(state.threadId)
      : api("POST", "/api/threads", {}).then(function (t) {
          state.threadId = t.threadId;
          state.branchId = "main";
          $("thread-label").textContent = "thread " + t.threadId;
          return t.threadId;
        });
    var ended = null;
    body.branchId = state.branchId;
    return ensureThread
      .then(function (threadId) {
        return request("POST", threadPath(threadId, "/runs/stream"), body);
      })
      .then(function (res) {
        return readStream(res, function (event, data) {
          if (event === "run") return;
          if (event === "end") {
            ended = data;
            logEvent("end", data.status + (data.interrupts.length ? ", waiting for " + data.interrupts.length + " answer(s)" : ""));
            markNodes("active", []);
            return;
          }
          if (event === "error") {
            ended = { status: "failed" };
            logEvent("error", data.error.type + ": " + data.error.message);
            setStatus("run failed: " + data.error.message, true);
            return;
          }
          if (data.node) markNodes("active", [data.node]);
          var interrupted = data.node === null && data.data && data.data.__interrupt__;
          logEvent(interrupted ? "interrupt" : event, describeStreamEvent(data));
        });
      })
      .then(function () {
        if (ended && ended.status !== "failed") setStatus("run " + ended.status);
        return selectThread(state.threadId, state.branchId);
      })
      .catch(fail)
      .then(function () {
        state.running = false;
        $("run").disabled = false;
      });
  }

  function showInterrupts(interrupts) {
    var box = $("interrupts");
    clear(box);
    box.hidden = !interrupts.length;
    if (!interrupts.length) return;
    box.appendChild(h("h3", { text: "Waiting for your answer" }));
    interrupts.forEach(function (it) {
      var question =
        it.value && typeof it.value === "object" && typeof it.value.question === "string"
          ? it.value.question
          : JSON.stringify(it.value, null, 2);
      var input = h("input", {
        type: "text",
        placeholder: "answer (JSON or text)",
        "data-key": it.key,
        className: "answer-input",
      });
      var send = function (value) {
        var resume = {};
        resume[it.key] = value;
        startRun({ resume: resume });
      };
      box.appendChild(
        h(
          "div",
          { className: "interrupt", "data-key": it.key },
          h("div", { className: "question", text: question }),
          h("div", { className: "muted", text: "key " + it.key + " · node " + it.node }),
          h(
            "div",
            { className: "answer-row" },
            h("button", { type: "button", className: "primary answer-yes", text: "Yes", onclick: function () { send(true); } }),
            h("button", { type: "button", className: "answer-no", text: "No", onclick: function () { send(false); } }),
            input,
            h("button", {
              type: "button",
              className: "answer-send",
              text: "Send",
              onclick: function () {
                var text = input.value;
                var value;
                try {
                  value = JSON.parse(text);
                } catch (e) {
                  value = text;
                }
                send(value);
              },
            }),
          ),
        ),
      );
    });
  }

  // ------------------------------------------------------------------ wiring
  $("run-form").addEventListener("submit", function (ev) {
    ev.preventDefault();
    var message = $("message").value.trim();
    startRun(message ? { message: message } : {});
  });
  $("new-thread").addEventListener("click", function () {
    selectThread(null).catch(fail);
  });
  $("refresh").addEventListener("click", function () {
    loadThreads().catch(fail);
  });
  $("branch").addEventListener("change", function () {
    selectThread(state.threadId, $("branch").value).catch(fail);
  });
  $("fork").addEventListener("click", function () {
    if (!state.threadId || !state.eventId) return;
    api("POST", threadPath(state.threadId, "/fork"), { eventId: state.eventId })
      .then(function (branch) {
        setStatus("forked branch " + branch.branchId + " at " + state.eventId);
        clear($("events"));
        return selectThread(branch.threadId, branch.branchId);
      })
      .catch(fail);
  });
  $("key-form").addEventListener("submit", function (ev) {
    ev.preventDefault();
    try {
      sessionStorage.setItem("nodestep.apiKey", $("api-key").value);
    } catch (e) {
      // private mode: the key lives until the page is left
    }
    $("key-form").hidden = true;
    start();
  });

  function start() {
    setStatus("");
    api("GET", "/api/graph")
      .then(function (view) {
        state.graph = view;
        drawGraph(view);
        return loadThreads();
      })
      .then(function () {
        setStatus("ready");
      })
      .catch(fail);
  }
  start();
})();
`;
