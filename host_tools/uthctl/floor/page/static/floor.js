// The floor page's script: each event of the stream (/events) replaces the
// floor's body with the one the server rendered (Jinja2, autoescaped), and
// a supervisor's Acknowledge button posts with the session's token.
"use strict";
const csrf = document.body.dataset.csrf;
const live = document.getElementById("live");
const floor = document.getElementById("floor");

floor.addEventListener("click", (event) => {
  const button = event.target.closest("button.ack");
  if (!button) return;
  button.disabled = true;
  fetch("/alerts/" + button.dataset.alert + "/ack",
        {method: "POST", headers: {"X-CSRF-Token": csrf}});
});

const source = new EventSource("/events");
source.onmessage = (event) => {
  live.textContent = "live";
  floor.innerHTML = JSON.parse(event.data).html;
};
source.onerror = () => { live.textContent = "reconnecting"; };
