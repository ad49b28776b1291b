// toold console: follows a session's feed over server-sent events and
// reloads the parts of the page that the feed says have changed. The pages
// work without it (reload to see more); it only keeps them current.
"use strict";

(function () {
  const fragment = { headers: { "X-Console-Fragment": "1" }, credentials: "same-origin" };

  // The sessions list reloads its table every few seconds.
  const list = document.getElementById("sessions");
  if (list) {
    setInterval(async () => {
      try {
        const res = await fetch(list.dataset.reload, fragment);
        if (res.ok) list.innerHTML = await res.text();
      } catch (e) { /* the next round tries again */ }
    }, 2000);
  }

  const page = document.querySelector("main.session");
  if (!page) return;
  const id = page.dataset.session;
  const feed = document.getElementById("feed");
  const asks = document.getElementById("asks");
  const live = document.getElementById("live");

  // The waiting requests are replaced only when they are others, so that
  // a deny message being typed is not wiped by an unrelated event.
  const requestIDs = (root) => Array.from(root.querySelectorAll("[data-request]"), (e) => e.dataset.request).join(" ");
  async function reloadAsks() {
    try {
      const res = await fetch("/sessions/" + encodeURIComponent(id) + "/asks", fragment);
      if (!res.ok) return;
      const t = document.createElement("template");
      t.innerHTML = await res.text();
      if (requestIDs(t.content) !== requestIDs(asks)) asks.replaceChildren(t.content);
    } catch (e) { /* the next event tries again */ }
  }

  function span(cls, text) {
    const s = document.createElement("span");
    s.className = cls;
    s.textContent = text;
    return s;
  }

  // One feed entry, built with textContent only: nothing of a call's input
  // or output is ever parsed as HTML.
  function item(it) {
    const li = document.createElement("li");
    li.className = "item k-" + it.kind + (it.is_error ? " error" : "");
    li.dataset.kind = it.kind;
    li.dataset.toolUseId = it.tool_use_id;
    const at = document.createElement("time");
    at.textContent = new Date(it.at).toISOString().slice(11, 19);
    const tool = document.createElement("b");
    tool.textContent = it.tool || "";
    li.append(at, " ", span("kind", it.kind), " ", tool, " ", span("summary", it.summary || ""));
    if (it.behavior) li.append(" ", span("badge " + it.behavior, it.behavior));
    if (it.rule) {
      const c = document.createElement("code");
      c.textContent = it.rule;
      li.append(" ", c);
    }
    if (it.source) li.append(" ", span("source", "(" + it.source + ")"));
    if (it.reason) {
      const d = document.createElement("div");
      d.className = "reason";
      d.textContent = it.reason;
      li.append(d);
    }
    if (it.text) {
      const p = document.createElement("pre");
      p.className = "text";
      p.textContent = it.text;
      li.append(p);
    }
    return li;
  }

  const es = new EventSource("/sessions/" + encodeURIComponent(id) + "/events?after=" + encodeURIComponent(page.dataset.after));
  es.addEventListener("open", () => { live.className = "live"; live.textContent = "live"; });
  es.addEventListener("error", () => { live.className = "live off"; live.textContent = "reconnecting"; });
  es.addEventListener("gone", () => {
    es.close();
    live.className = "live off";
    live.textContent = "session ended";
  });
  es.addEventListener("feed", (ev) => {
    let it;
    try { it = JSON.parse(ev.data); } catch (e) { return; }
    feed.prepend(item(it));
    if (it.kind === "ask" || it.kind === "started" || it.kind === "result") reloadAsks();
  });
})();
