// A table's page: the meter over a day or a week, drawn by uPlot (vendored
// in static/uplot, served by the page itself: the floor has no internet).
"use strict";
const table = document.querySelector("main").dataset.table;
const box = document.getElementById("chart");
const note = document.getElementById("chart-note");
let chart = null;

function dollars(u, value) { return value == null ? "" : "$" + value.toFixed(2); }

async function draw(span) {
  const reply = await fetch("/tables/" + encodeURIComponent(table) + "/meter.json?span=" + span);
  const points = await reply.json();
  if (chart) chart.destroy();
  note.textContent = points.t.length ? points.t.length + " points over the " + span
    : "no meter record in the last " + span;
  // The meter over its cycle: from the configuration's reset to its
  // must-hit-by, both drawn as lines (as the tile's bar runs).
  const series = [{}, {label: "meter", stroke: "#ffb300", width: 2, value: dollars}];
  const data = [points.t, points.dollars];
  const scales = {};
  if (box.dataset.maximum) {
    const reset = Number(box.dataset.reset), maximum = Number(box.dataset.maximum);
    series.push({label: "reset", stroke: "#8fc3ff", dash: [6, 4], value: dollars},
                {label: "must-hit-by", stroke: "#ff6b60", dash: [6, 4], value: dollars});
    data.push(points.t.map(() => reset), points.t.map(() => maximum));
    const top = Math.max(maximum, ...points.dollars);
    scales.y = {range: [reset - (top - reset) * 0.05, top + (top - reset) * 0.05]};
  }
  chart = new uPlot({
    width: Math.max(300, box.clientWidth), height: 260, series, scales,
    axes: [{stroke: "#ccc", grid: {stroke: "#444"}},
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
