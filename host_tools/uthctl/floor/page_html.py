# The floor page's two documents. The page draws the tiles from the event
# stream (/events) with textContent only, so nothing a table sends is
# taken as markup.
LOGIN = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Floor: log in</title>
<style>body{font:16px sans-serif;margin:4em auto;max-width:20em}
input{display:block;margin:.4em 0 1em;width:100%}</style></head>
<body><h1>Casino floor</h1><p id="error">{error}</p>
<form method="post" action="/login">
<label>Name <input name="name" autocomplete="username" required></label>
<label>Password <input name="password" type="password" autocomplete="current-password"
required></label><button type="submit">Log in</button></form></body></html>
"""

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Casino floor</title>
<style>
body{font:15px sans-serif;margin:1em;background:#1d2126;color:#eee}
header{display:flex;gap:1em;align-items:center}
#tiles{display:grid;grid-template-columns:repeat(auto-fill,minmax(15em,1fr));gap:.8em}
.tile{background:#2b3138;border-radius:6px;padding:.7em;border-left:6px solid #4caf50}
.tile.offline{border-left-color:#9e9e9e;opacity:.8}.tile.alerting{border-left-color:#e53935}
.meter{font:bold 1.8em monospace;color:#ffb300}.pending{color:#ff7043;font-weight:bold}
.alert{background:#4a2626;margin:.3em 0;padding:.3em;border-radius:4px}
.muted{color:#aaa;font-size:.9em}
</style></head>
<body data-role="{role}" data-csrf="{csrf}">
<header><h1>Casino floor</h1><span id="who">{user} ({role})</span>
<form method="post" action="/logout"><button>Log out</button></form>
<span id="live" class="muted">connecting</span></header>
<div id="tiles"></div>
<script>
const role = document.body.dataset.role, csrf = document.body.dataset.csrf;
function line(parent, cls, text) {
  const el = document.createElement("div"); el.className = cls; el.textContent = text;
  parent.appendChild(el); return el;
}
function since(t) { return t ? new Date(t * 1000).toLocaleTimeString() : "?"; }
function draw(tiles) {
  const box = document.getElementById("tiles"); box.replaceChildren();
  for (const t of tiles) {
    const tile = document.createElement("section");
    tile.id = "table-" + t.table;
    if (t.unreadable) {
      tile.className = "tile alerting";
      line(tile, "name", "Table " + t.table + " \\u00b7 unreadable");
      line(tile, "pending", t.unreadable);
      box.appendChild(tile); continue;
    }
    tile.className = "tile" + (t.link === "offline" ? " offline" : "") +
      (t.alerts.length ? " alerting" : "");
    line(tile, "name", "Table " + t.table + " \\u00b7 " + (t.state || "?"));
    line(tile, "meter", t.display || "--");
    line(tile, "muted", "configuration " + (t.config || "?") + " \\u00b7 " +
      (t.records || 0) + " records");
    if (t.link === "offline") line(tile, "muted", "offline since " + since(t.link_since));
    if (t.pending) line(tile, "pending", "PENDING: seat " + t.pending.seat + ", award " +
      t.pending.award);
    if (t.fault) line(tile, "pending", "fault: " + t.fault);
    if (t.unsigned) line(tile, "pending", "UNSIGNED: records held by their chain alone");
    if (t.internal) line(tile, "muted", t.internal + " messages the floor failed on");
    for (const r of t.rules || []) {
      const verdict = r.expired ? ", EXPIRED" :
        r.expired === null ? ", the board cannot tell" : "";
      line(tile, r.expired ? "pending" : "muted",
        r.section + ": " + r.effective + " to " + r.expires + verdict);
    }
    for (const a of t.alerts) {
      const el = line(tile, "alert", a.kind + ": " + a.text + " (" + since(a.raised_at) + ")");
      if (role === "supervisor") {
        const b = document.createElement("button"); b.textContent = "Acknowledge";
        b.className = "ack"; b.onclick = () => fetch("/alerts/" + a.id + "/ack",
          {method: "POST", headers: {"X-CSRF-Token": csrf}});
        el.appendChild(b);
      }
    }
    box.appendChild(tile);
  }
}
const source = new EventSource("/events");
source.onmessage = (e) => {
  document.getElementById("live").textContent = "live"; draw(JSON.parse(e.data));
};
source.onerror = () => { document.getElementById("live").textContent = "reconnecting"; };
</script></body></html>
"""
