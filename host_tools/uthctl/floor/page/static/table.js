// A table's page: the meter over a day or a week, drawn by uPlot (vendored
// in static/uplot, served by the page itself: the floor has no internet).
"use strict";
const table = document.querySelector("main").dataset.table;
const box = document.getElementById("chart");
const note = document.getElementById("chart-note");
let chart = null;

function dollars(u, value) { return value == null ? "" : "$" + value.toFixed(2); }

// Times as the page writes them, in the floor's zone whatever the
// browser's: 2026-12-03 07:01:40 EST (the axis: its date or its time).
const zone = box.dataset.zone || "UTC";
const parts = new Intl.DateTimeFormat("en-US", {
  timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit",
  minute: "2-digit", second: "2-digit", hourCycle: "h23", timeZoneName: "short"});
function fields(seconds) {
  const got = {};
  for (const p of parts.formatToParts(new Date(seconds * 1000))) got[p.type] = p.value;
  return got;
}
function shown(seconds) {
  const f = fields(seconds);
  return `${f.year}-${f.month}-${f.day} ${f.hour}:${f.minute}:${f.second} ${f.timeZoneName}`;
}
function tick(seconds, step) {
  // The axis: as much of the page's format as the ticks' step needs.
  const f = fields(seconds);
  if (step >= 86400) return `${f.year}-${f.month}-${f.day}`;
  return step >= 60 ? `${f.hour}:${f.minute}` : `${f.hour}:${f.minute}:${f.second}`;
}

async function draw(span) {
  const reply = await fetch("/tables/" + encodeURIComponent(table) + "/meter.json?span=" + span);
  const points = await reply.json();
  if (chart) chart.destroy();
  note.textContent = points.t.length ? points.t.length + " points over the " + span
    : "no meter record in the last " + span;
  // The meter over its cycle: from the configuration's reset to its
  // must-hit-by, both drawn as lines (as the tile's bar runs).
  const series = [{value: (u, t) => t == null ? "" : shown(t)},
                  {label: "meter", stroke: "#ffb300", width: 2, value: dollars}];
  const data = [points.t, points.dollars];
  const scales = {};
  if (box.dataset.maximum) {
    const reset = Number(box.dataset.reset), maximum = Number(box.dataset.maximum);
    series.push({label: "reset", stroke: "#8fc3ff", dash: [6, 4], value: dollars,
                 points: {show: false}},
                {label: "must-hit-by", stroke: "#ff6b60", dash: [6, 4], value: dollars,
                 points: {show: false}});
    data.push(points.t.map(() => reset), points.t.map(() => maximum));
    const top = Math.max(maximum, ...points.dollars);
    scales.y = {range: [reset - (top - reset) * 0.05, top + (top - reset) * 0.05]};
  }
  chart = new uPlot({
    width: Math.max(300, box.clientWidth), height: 260, series, scales,
    tzDate: (t) => uPlot.tzDate(new Date(t * 1000), zone),
    axes: [{stroke: "#ccc", grid: {stroke: "#444"}, label: zone + " (" + fields(Date.now() / 1000).timeZoneName + ")",
            space: 70, values: (u, v, axis, space, step) => v.map((t) => tick(t, step))},
           {stroke: "#ccc", grid: {stroke: "#444"}, size: 80,
            values: (u, v) => v.map((x) => "$" + x.toFixed(2))}],
  }, data, box);
  box.dataset.drawn = span;
  for (const b of document.querySelectorAll("button.span")) {
    b.classList.toggle("on", b.dataset.span === span);
  }
}

for (const b of document.querySelectorAll("button.span")) {
  b.addEventListener("click", () => draw(b.dataset.span));
}
draw("day");
