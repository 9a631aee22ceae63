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
  chart = new uPlot({
    width: Math.max(300, box.clientWidth), height: 260,
    series: [{}, {label: "meter", stroke: "#ffb300", width: 2, value: dollars}],
    axes: [{stroke: "#ccc", grid: {stroke: "#444"}},
           {stroke: "#ccc", grid: {stroke: "#444"}, size: 80,
            values: (u, v) => v.map((x) => "$" + x.toFixed(2))}],
  }, [points.t, points.dollars], box);
  box.dataset.drawn = span;
  for (const b of document.querySelectorAll("button.span")) {
    b.classList.toggle("on", b.dataset.span === span);
  }
}

for (const b of document.querySelectorAll("button.span")) {
  b.addEventListener("click", () => draw(b.dataset.span));
}
draw("day");
